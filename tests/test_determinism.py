"""A grade depends on the file alone: not on --jobs, on how the batch is split, or on the caches."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from conftest import HEADS, REFERENCE, TEMPLATE, TESTS, VARIANTS

from grader.cli import cli

SUBMISSIONS = [
    REFERENCE,
    TEMPLATE,
    VARIANTS / "missing_scale.py",
    VARIANTS / "softmax_global_max.py",
    TESTS / "submissions" / "flips_every_25_calls.py",
    VARIANTS / "noisy_scores.py",  # draws from np.random, which each worker seeds the same way
]


def _grade(folder: Path, out: Path, jobs: int, sandbox: str) -> dict[str, bytes]:
    result = CliRunner().invoke(
        cli, ["grade", str(folder), "--out", str(out), "--jobs", str(jobs), "--sandbox", sandbox], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    graded = {"grades.csv": (out / "grades.csv").read_bytes()}
    for path in sorted(out.glob("*.json")):
        if path.name != "summary.json":
            report = json.loads(path.read_text())
            del report["duration_s"]  # the one field that measures the machine, not the file
            del report["signature"]  # made with each reports folder's own key (grader.batch.signing)
            graded[path.name] = json.dumps(report, sort_keys=True).encode()
    return graded


def test_grades_are_identical_whatever_the_jobs_and_the_cache(tmp_path, monkeypatch, isolation):
    folder = tmp_path / "submissions"
    folder.mkdir()
    for path in SUBMISSIONS:
        shutil.copyfile(path, folder / f"{path.parent.name}_{path.stem}.py")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # cold: examples recorded, failures live
    one_job = _grade(folder, tmp_path / "one", 1, isolation)
    two_jobs = _grade(folder, tmp_path / "two", 2, isolation)  # warm: failures walk the traces just kept
    assert list((tmp_path / "cache").glob("attention-grader/examples/*/public/attention_head/traces/*/*/*.trace"))
    assert two_jobs == one_job
    scores = {name: json.loads(text)["score"] for name, text in one_job.items() if name.endswith(".json")}
    assert scores["reference_attention.json"] >= 100 and scores["variants_missing_scale.json"] < 100
