"""The reports folder, as a student who knows the public grader would fill it: nothing in
OUT is trusted that this grader did not write there for that very file.

A batch keeps a report already in OUT (the resume), so OUT is an attack surface: a report
forged from the public ``--json`` output with its score raised, one naming a classmate,
one replaced by a link to ``/dev/zero`` or by a named pipe, OUT inside the submissions
folder where an LMS download puts a second file. Each attack is tried here against
``grader grade`` as an instructor runs it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REFERENCE, ROOT

from grader.assignments.rubric import load_rubric
from grader.batch import grade_folder, signing
from grader.errors import UsageError
from grader.sandbox import Limits

ZEROS = """\
import numpy as np
def softmax(x, axis=-1):
    return np.zeros_like(x)
def attention(Q, K, V, mask=None):
    return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))
def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
def causal_mask(n):
    return np.zeros((n, n), dtype=bool)
"""


SMALL_RUBRIC = """
name = "small"
[[checks]]
id = "softmax.rows_sum_to_one"
points = 2
[[checks]]
id = "causal_mask.values"
points = 3
[[checks]]
id = "extension.batched"
points = 1
bonus = true
"""


@pytest.fixture
def small_rubric(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_RUBRIC)
    return path


def _grade(submissions: Path, out: Path, rubric: Path, isolation: str, *more: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "grader", "grade", str(submissions), "--out", str(out),
               "--jobs", "1", "--rubric", str(rubric), "--sandbox", isolation, *more]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.fixture
def graded(tmp_path: Path, small_rubric: Path, isolation: str) -> tuple[Path, Path]:
    """A class of two graded once: ada (the lesson's head) and zed (zeros everywhere)."""
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    (submissions / "zed.py").write_text(ZEROS)
    result = _grade(submissions, out, small_rubric, isolation)
    assert result.returncode == 0, result.stderr
    return submissions, out


def _scores(out: Path) -> dict[str, float]:
    return {row["student"]: float(row["score"]) for row in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


@pytest.mark.parametrize("where", ["same", "inside", "holding"])
def test_the_reports_folder_may_not_overlap_the_submissions_folder(tmp_path, small_rubric, isolation, where):
    submissions = tmp_path / "class"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    out = {"same": submissions, "inside": submissions / "reports", "holding": tmp_path}[where]
    result = _grade(submissions, out, small_rubric, isolation)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if not line.startswith("grader: warning:")]
    assert len(errors) == 1 and "may not be, hold or lie inside the submissions folder" in errors[0], result.stderr
    assert not (submissions / "ada.json").exists() and not (submissions / "reports").exists()
    with pytest.raises(UsageError):
        grade_folder(submissions, out, load_rubric(small_rubric), Limits(isolation=isolation))


def test_a_report_forged_from_the_public_output_is_graded_again(graded, small_rubric, isolation):
    submissions, out = graded
    assert _scores(out) == {"ada": 6.0, "zed": 0.0}
    # The public grader's own report of zed's file, every identity field right, the score raised.
    public = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(submissions / "zed.py"), "--rubric", str(small_rubric),
         "--sandbox", isolation, "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    forged = json.loads(public.stdout)
    assert forged["submission_sha256"] == json.loads((out / "zed.json").read_text())["submission_sha256"]
    forged |= {"score": 6.0, "checks": [check | {"status": "passed", "points": check["max_points"]} for check in forged["checks"]]}
    (out / "zed.json").write_text(json.dumps(forged))
    result = _grade(submissions, out, small_rubric, isolation)
    assert result.returncode == 0, result.stderr
    assert "(1 kept from an earlier run)" in result.stdout
    assert "1 report in" in result.stdout and "not written by this grader" in result.stdout and "(zed)" in result.stdout
    assert _scores(out) == {"ada": 6.0, "zed": 0.0}
    assert json.loads((out / "summary.json").read_text())["reports_not_trusted"] == ["zed"]


def test_a_signed_report_edited_or_copied_to_another_name_is_graded_again(graded, small_rubric, isolation):
    submissions, out = graded
    report = json.loads((out / "zed.json").read_text())
    (out / "zed.json").write_text(json.dumps(report | {"score": 6.0}, indent=2))  # the signature no longer holds
    # A classmate's report, signed by this very batch, under zed's name: its student is not zed.
    shutil.copyfile(REFERENCE, submissions / "zed_copy.py")
    shutil.copyfile(out / "ada.json", out / "zed_copy.json")
    result = _grade(submissions, out, small_rubric, isolation)
    assert "2 reports in" in result.stdout, result.stdout
    assert _scores(out) == {"ada": 6.0, "zed": 0.0, "zed_copy": 6.0}
    assert json.loads((out / "zed_copy.json").read_text())["student"] == "zed_copy"
    rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))
    assert sorted(row["student"] for row in rows) == ["ada", "zed", "zed_copy"]


def test_a_signed_report_whose_score_is_not_its_checks_is_graded_again(graded, small_rubric, isolation):
    """Were the key ever read, a re-signed report would still have to add up."""
    submissions, out = graded
    key = signing.report_key(out)
    report = json.loads((out / "zed.json").read_text())
    (out / "zed.json").write_text(signing.signed(json.dumps(report | {"score": 6.0}), key))
    assert signing.read_signed(out, "zed.json", key) is not None
    result = _grade(submissions, out, small_rubric, isolation)
    assert "(zed)" in result.stdout and _scores(out)["zed"] == 0.0


@pytest.mark.parametrize("replacement", ["dev_zero", "fifo"])
def test_a_report_replaced_by_a_link_a_pipe_or_a_folder_is_never_read(graded, small_rubric, isolation, replacement):
    submissions, out = graded
    (out / "zed.json").unlink()
    if replacement == "dev_zero":
        (out / "zed.json").symlink_to("/dev/zero")
    else:
        os.mkfifo(out / "zed.json")
    result = _grade(submissions, out, small_rubric, isolation)  # a read of /dev/zero or the pipe would not end
    assert result.returncode == 0, result.stderr
    assert "(zed)" in result.stdout
    assert stat.S_ISREG(os.lstat(out / "zed.json").st_mode) and _scores(out) == {"ada": 6.0, "zed": 0.0}


def test_the_key_lives_beside_the_reports_readable_by_its_owner_alone(graded):
    submissions, out = graded
    path = signing.key_path(out)
    assert path.parent == out.resolve().parent and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = path.read_text().strip()
    for written in out.iterdir():
        assert key not in written.read_text(), written
    shutil.copyfile(path, out.parent / "stolen")  # the key itself, readable by others, is refused
    path.chmod(0o644)
    with pytest.raises(UsageError, match="not a report key this grader made"):
        signing.report_key(out)
    path.chmod(0o600)
    path.unlink()
    path.symlink_to(out.parent / "stolen")
    with pytest.raises(UsageError, match="not a report key this grader made"):
        signing.report_key(out)


def test_a_lost_key_loses_nothing_but_the_resume(graded, small_rubric, isolation):
    submissions, out = graded
    signing.key_path(out).unlink()
    result = _grade(submissions, out, small_rubric, isolation)
    assert result.returncode == 0 and "graded 2 submissions" in result.stdout and "(ada, zed)" in result.stdout
    again = _grade(submissions, out, small_rubric, isolation)
    assert "(2 kept from an earlier run)" in again.stdout and "not written" not in again.stdout
    assert _scores(out) == {"ada": 6.0, "zed": 0.0}


def test_a_folder_where_a_report_or_the_key_goes_is_one_sentence(graded, small_rubric, isolation):
    submissions, out = graded
    (out / "zed.json").unlink()
    (out / "zed.json").mkdir()
    result = _grade(submissions, out, small_rubric, isolation)
    errors = [line for line in result.stderr.splitlines() if not line.startswith("grader: warning:")]
    assert result.returncode == 74 and errors == [f"grader: error: cannot use {out / 'zed.json'}: Is a directory"], result.stderr
    (out / "zed.json").rmdir()
    signing.key_path(out).unlink()
    signing.key_path(out).mkdir()
    result = _grade(submissions, out, small_rubric, isolation)
    assert result.returncode == 2 and "is not a report key this grader made" in result.stderr


def test_a_report_graded_under_other_budgets_is_graded_again(graded, small_rubric, isolation):
    """A slow head's grade depends on the call timeout: a resumed batch with another keeps
    no report of the first (and one with the same keeps them all)."""
    submissions, out = graded
    same = _grade(submissions, out, small_rubric, isolation)
    assert "(2 kept from an earlier run)" in same.stdout, same.stdout
    other = _grade(submissions, out, small_rubric, isolation, "--call-timeout", "3")
    assert other.returncode == 0 and "graded 2 submissions" in other.stdout and "kept" not in other.stdout, other.stdout
    report = json.loads((out / "ada.json").read_text())
    assert report["limits"]["call_timeout_s"] == 3.0
