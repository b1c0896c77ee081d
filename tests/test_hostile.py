"""Hostile and broken submissions, graded as one batch the way an instructor would.

Each file under tests/hostile/ and tests/broken/ declares the checks it must fail and
pass and its report's status (see conftest.expectation). Beyond that, the batch must
finish in bounded time, keep every report small and truthful, and leave every other
submission and report untouched, also after a detached daemon had seconds to act.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import NEEDS_ROOT_AND_SYSTEM_PYTHON, REFERENCE, ROOT, TESTS, VARIANTS, expectation
from grader.batch import grade_folder, read_in_full
from grader.report import NOT_MISTAKES, Report, to_json
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
    told = {diagnosis["id"] for diagnosis in report.diagnoses if diagnosis["id"] not in NOT_MISTAKES}
    assert told <= set(declared.diagnoses), told


def test_reports_are_small_and_the_batch_is_bounded(hostile_batch):
    for report in hostile_batch["reports"].values():
        assert len(to_json(report)) < 1_000_000, report.student
    assert hostile_batch["elapsed"] < 30 * 60


def test_no_report_or_submission_was_touched_after_grading(hostile_batch):
    out = hostile_batch["out"]
    for student, report in hostile_batch["reports"].items():
        written = json.loads((out / f"{student}.json").read_text())
        assert written.pop("signature").startswith("hmac-sha256:")
        assert written == json.loads(to_json(report))
    summary = json.loads((out / "summary.json").read_text())
    assert {s["student"]: s["score"] for s in summary["submissions"]} == {
        student: report.score for student, report in hostile_batch["reports"].items()
    }
    folder = hostile_batch["folder"]
    assert {path.name: digest(path) for path in folder.iterdir()} == hostile_batch["sources"]


# Heads that act on what later workers of the same job would meet: processes, files in
# every writable place, modules where Python looks, every process setting within reach.
LEAVE_SOMETHING_BEHIND = [
    "daemon_kills_later_processes.py",
    "tampers_with_the_sandbox_for_later_workers.py",
    "writes_modules_everywhere_at_import.py",
    "fills_every_file_system_at_import.py",
    "changes_every_process_setting_at_import.py",
    "leaves_keys_for_the_next_worker_at_import.py",
    "leaves_sockets_in_transit_at_import.py",
    "sets_the_io_priority_of_later_workers_at_import.py",
    "marks_the_scratch_folders_at_import.py",
]


def _full_marks(rubric) -> float:
    return rubric.max_score + sum(check.points for check in rubric.checks if check.bonus)


@pytest.mark.parametrize("hostile", LEAVE_SOMETHING_BEHIND)
def test_what_one_submission_leaves_never_meets_the_next(tmp_path, rubric, hostile):
    """Workers of one job are forked in one sandbox, one after another: whatever a worker
    leaves running, writes or changes there must be gone before the next submission's
    worker starts, which then finds the sandbox as a fresh one (the probe checks, and
    fails otherwise), and the reference after it keeps full marks."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(TESTS / "hostile" / hostile, folder / "a_hostile.py")
    shutil.copyfile(TESTS / "submissions" / "checks_its_sandbox_is_clean.py", folder / "b_probe.py")
    shutil.copyfile(REFERENCE, folder / "c_reference.py")
    started = time.monotonic()
    reports = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation="bubblewrap"), jobs=1)
    scores = {report.student: report.score for report in reports}
    expected = {"a_hostile": _full_marks(rubric), "b_probe": _full_marks(rubric), "c_reference": _full_marks(rubric)}
    assert scores == expected, [(r.student, r.error or [c.feedback for c in r.checks if c.feedback][:1]) for r in reports]
    assert time.monotonic() - started < 60


# Each writes only where uid 65534 may (a plain worker started by root drops to it), and
# names what it leaves, so the test removes it again.
PLAIN_WORKER_LEFTOVERS = ("random.py", "hashlib.py", "json.py", "numpy.py", "traceback.py", "signal.py", "ctypes.py",
                          "sitecustomize.py", "usercustomize.py", "wire.py", "worker.py", "zz_planted.pth")


@NEEDS_ROOT_AND_SYSTEM_PYTHON
@pytest.mark.parametrize("hostile", LEAVE_SOMETHING_BEHIND[2:5])
def test_a_plain_worker_leaves_nothing_the_next_one_meets(tmp_path, rubric, hostile, python_nobody_can_run):
    """The same heads in the process sandbox, graded by root (workers run as uid 65534):
    what they write lands outside every later worker's path, and what they change is
    their own process's, so the reference graded next keeps full marks."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(TESTS / "hostile" / hostile, folder / "a_hostile.py")
    shutil.copyfile(REFERENCE, folder / "b_reference.py")
    out = tmp_path / "out"
    command = [str(python_nobody_can_run), "-m", "grader", "grade", str(folder), "--out", str(out),
               "--jobs", "1", "--sandbox", "process"]
    try:
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        scores = {entry["student"]: entry["score"] for entry in json.loads((out / "summary.json").read_text())["submissions"]}
        assert scores == {"a_hostile": _full_marks(rubric), "b_reference": _full_marks(rubric)}, run.stdout
    finally:
        _remove_what_plain_workers_left()


def _remove_what_plain_workers_left() -> None:
    for folder in (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")):
        for path in [*folder.glob("hostile-fill-*.bin"), *(folder / name for name in PLAIN_WORKER_LEFTOVERS)]:
            if path.is_file() and path.stat().st_uid == 65534:
                path.unlink()


def test_a_head_that_fills_its_space_is_told_how_much_there_is(hostile_batch):
    report = hostile_batch["reports"]["hostile__fills_tmp_in_softmax"]
    check = next(check for check in report.checks if check.id == "softmax.rows_sum_to_one")
    assert "No space left on device" in check.feedback
    assert "/tmp and /dev/shm, which hold 16 MiB each" in check.feedback


def test_nan_earns_nothing_that_zeros_do_not(tmp_path, rubric):
    """nan compares False with everything: a check that only asks that no value be out of
    range would pass it. A head returning nan may pass no check a head of zeros fails."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(TESTS / "hostile" / "nan_output_otherwise_zeros.py", folder / "nan.py")
    shutil.copyfile(TESTS / "submissions" / "zeros_everywhere.py", folder / "zeros.py")
    out = tmp_path / "out"
    reports = {r.student: r for r in read_in_full(out, grade_folder(folder, out, rubric, Limits(isolation="bubblewrap")))}
    zeros_passed = {check.id for check in reports["zeros"].checks if check.status == "passed"}
    nan_passed = {check.id for check in reports["nan"].checks if check.status == "passed"}
    assert nan_passed <= zeros_passed and reports["nan"].score <= reports["zeros"].score
    convex = next(check for check in reports["nan"].checks if check.id == "attention.convex_combination")
    assert "nan" in convex.feedback


def test_a_head_that_tells_the_graders_inputs_apart_loses_what_it_would_anywhere(tmp_path, rubric):
    """Answering the lesson's way only on the grader's readable grid (and without the scale
    otherwise) loses every check a head without the scale loses, but the lesson's worked
    example, whose fixed input is the lesson's own."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(TESTS / "hostile" / "special_cases_the_grid.py", folder / "cheats.py")
    shutil.copyfile(VARIANTS / "missing_scale.py", folder / "no_scale.py")
    reports = {r.student: r for r in grade_folder(folder, tmp_path / "out", rubric, Limits(isolation="bubblewrap"))}
    statuses = {name: {check.id: check.status for check in report.checks} for name, report in reports.items()}
    assert statuses["cheats"].pop("attention.worked_example") == "passed"
    assert statuses["no_scale"].pop("attention.worked_example") == "failed"
    assert statuses["cheats"] == statuses["no_scale"]


def test_what_a_message_holds_reaches_no_terminal_and_breaks_no_output(tmp_path):
    """An exception message made of escape sequences, a carriage return, a lone surrogate:
    ``grader check`` prints it as text and writes every format so its consumer reads it."""
    junitparser = pytest.importorskip("junitparser")
    head = TESTS / "hostile" / "raises_terminal_escapes.py"
    formats = ["json", "html", "gradescope", "prairielearn", "junit", "classroom", "markdown", "text"]
    command = [sys.executable, "-m", "grader", "check", str(head), "--sandbox", "bubblewrap",
               *(f"--format={name}:{tmp_path / name}" for name in formats)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=600)
    assert run.returncode == 0, run.stderr
    for stream in (run.stdout, run.stderr):
        text = stream.decode("utf-8")
        assert all(character == "\n" or character.isprintable() for character in text), repr(text)
    assert "\\x1b[2J" in run.stdout.decode()  # shown, as text
    for name in formats:
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert all(character in "\n\t" or character.isprintable() for character in text), name
    for name in ("json", "gradescope", "prairielearn"):
        json.loads((tmp_path / name).read_text(encoding="utf-8"))
    json.loads(base64.b64decode((tmp_path / "classroom").read_text()))
    junitparser.JUnitXml.fromfile(str(tmp_path / "junit"))
