"""Hostile and broken submissions, graded as one batch the way an instructor would.

Each file under tests/hostile/ and tests/broken/ declares the checks it must fail and
pass and its report's status (see conftest.expectation). Beyond that, the batch must
finish in bounded time, keep every report small and truthful, and leave every other
submission and report untouched, also after a detached daemon had seconds to act.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import TESTS, expectation
from grader.batch import grade_folder, read_in_full
from grader.report import Report, to_json
from grader.sandbox import Limits

CASES = sorted(TESTS.glob("hostile/*.py")) + sorted(TESTS.glob("broken/*.py"))
SHORT = Limits(call_timeout=2.0, import_timeout=10.0, check_budget=15.0, isolation="bubblewrap")
DAEMON_GRACE_S = 5.0

pytestmark = pytest.mark.bubblewrap  # the cases declare what they earn in the real sandbox


def case_id(path: Path) -> str:
    return f"{path.parent.name}__{path.stem}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def hostile_batch(tmp_path_factory, rubric):
    """Grade every case in one batch; then give detached daemons time to strike."""
    folder, out = tmp_path_factory.mktemp("submissions"), tmp_path_factory.mktemp("reports")
    for path in CASES:
        shutil.copyfile(path, folder / f"{case_id(path)}.py")
    sources = {path.name: digest(path) for path in folder.iterdir()}
    started = time.monotonic()
    reports = list(read_in_full(out, grade_folder(folder, out, rubric, SHORT, jobs=os.cpu_count() or 1)))
    elapsed = time.monotonic() - started
    time.sleep(DAEMON_GRACE_S)
    return {
        "reports": {report.student: report for report in reports},
        "elapsed": elapsed,
        "folder": folder,
        "out": out,
        "sources": sources,
    }


@pytest.mark.parametrize("path", CASES, ids=case_id)
def test_each_case_gets_exactly_what_its_answers_earn(hostile_batch, path: Path):
    declared = expectation(path)
    report: Report = hostile_batch["reports"][case_id(path)]
    assert report.status == declared.status, report.error
    assert declared.violations(report) == {}
    if report.status == "error":
        assert report.error and "\n" not in report.error
    for check in report.checks:
        if check.status != "passed":
            assert check.feedback, check.id
    # Named mistakes are proven: a case is told none it does not declare.
    told = {diagnosis["id"] for diagnosis in report.diagnoses if diagnosis["id"] != "observed"}
    assert told <= set(declared.diagnoses), told


def test_reports_are_small_and_the_batch_is_bounded(hostile_batch):
    for report in hostile_batch["reports"].values():
        assert len(to_json(report)) < 1_000_000, report.student
    assert hostile_batch["elapsed"] < 30 * 60


def test_no_report_or_submission_was_touched_after_grading(hostile_batch):
    out = hostile_batch["out"]
    for student, report in hostile_batch["reports"].items():
        assert json.loads((out / f"{student}.json").read_text()) == json.loads(to_json(report))
    summary = json.loads((out / "summary.json").read_text())
    assert {s["student"]: s["score"] for s in summary["submissions"]} == {
        student: report.score for student, report in hostile_batch["reports"].items()
    }
    folder = hostile_batch["folder"]
    assert {path.name: digest(path) for path in folder.iterdir()} == hostile_batch["sources"]


@pytest.mark.parametrize(
    "hostile", ["daemon_kills_later_processes.py", "tampers_with_the_sandbox_for_later_workers.py"]
)
def test_what_one_submission_leaves_never_meets_the_next(tmp_path, rubric, hostile):
    """Workers of one job are forked in one sandbox, one after another: whatever a worker
    leaves running or changes there must be gone before the next submission's worker
    starts, which then finds the sandbox as a fresh one (it checks, and fails otherwise)."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(TESTS / "hostile" / hostile, folder / "a_hostile.py")
    shutil.copyfile(TESTS / "submissions" / "checks_its_sandbox_is_clean.py", folder / "b_probe.py")
    started = time.monotonic()
    reports = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation="bubblewrap"), jobs=1)
    scores = {report.student: report.score for report in reports}
    full_marks = rubric.max_score + sum(check.points for check in rubric.checks if check.bonus)
    assert scores == {"a_hostile": scores["a_hostile"], "b_probe": full_marks}, reports[1].checks[0].feedback
    assert time.monotonic() - started < 30
