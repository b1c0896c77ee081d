"""One check process grades submission after submission (several in one run), and survives the ones that break it."""

from __future__ import annotations

import os
import signal

import pytest
from conftest import HEADS, REFERENCE, TESTS

from grader.engine.grading import grade_files
from grader.engine.runner import CheckProcess, run_checks
from grader.errors import GradingFailed
from grader.sandbox import Limits
from grader.sources.files import SubmissionFile

BUGGY = HEADS / "buggy" / "mask_inverted.py"
SLEEPS = TESTS / "submissions" / "sleeps_in_softmax.py"
SLOW_DIAGNOSIS = TESTS / "submissions" / "slow_only_when_diagnosed.py"


def test_results_do_not_depend_on_what_the_process_graded_before(rubric, isolation):
    limits = Limits(isolation=isolation)
    with CheckProcess() as checks:
        sequence = [checks.run(path.read_bytes(), rubric, limits) for path in (REFERENCE, BUGGY, REFERENCE)]
    assert sequence[0] == sequence[2]
    assert all(result.status == "passed" for result in sequence[0].results)
    assert sequence[1] == run_checks(BUGGY.read_bytes(), rubric, limits)


def test_a_submission_over_its_budget_fails_alone(rubric, isolation):
    slow = Limits(isolation=isolation, call_timeout=30.0, check_budget=60.0, submission_budget=3.0)
    with CheckProcess() as checks:
        with pytest.raises(GradingFailed, match="longer than 3 s"):
            checks.run(SLEEPS.read_bytes(), rubric, slow)
        after = checks.run(REFERENCE.read_bytes(), rubric, Limits(isolation=isolation))
    assert all(result.status == "passed" for result in after.results)


def test_a_slow_diagnosis_never_costs_a_submission_its_grade(rubric, isolation):
    """Pictures and diagnoses explain a grade; they stop before the submission's budget
    runs out, so its checks' results stand (here the checks take about 2 s, and the
    diagnosis's calls 1.5 s each)."""
    tight = Limits(isolation=isolation, submission_budget=12.0, import_timeout=3.0)
    with CheckProcess() as checks:
        run = checks.run(SLOW_DIAGNOSIS.read_bytes(), rubric, tight)
    assert run.duration_s <= tight.submission_budget
    assert {result.id for result in run.results if result.status != "passed"} == {"causal_mask.values"}


def test_a_killed_check_process_fails_one_submission_and_is_replaced(rubric, isolation):
    limits = Limits(isolation=isolation)
    with CheckProcess() as checks:
        os.kill(checks._process.pid, signal.SIGKILL)
        with pytest.raises(GradingFailed, match="stopped unexpectedly"):
            checks.run(REFERENCE.read_bytes(), rubric, limits)
        after = checks.run(REFERENCE.read_bytes(), rubric, limits)
    assert all(result.status == "passed" for result in after.results)


def test_one_run_grades_several_submissions_each_as_if_alone(rubric, isolation):
    limits = Limits(isolation=isolation)
    heads = [REFERENCE, BUGGY, TESTS / "submissions" / "flips_every_25_calls.py", REFERENCE]
    with CheckProcess() as checks:
        together = checks.run_many([path.read_bytes() for path in heads], rubric, limits)
        alone = [checks.run(path.read_bytes(), rubric, limits) for path in heads]
    assert together == alone
    assert together[1].diagnoses and not together[0].diagnoses


def test_a_submission_that_breaks_a_shared_run_fails_alone(rubric, isolation):
    slow = Limits(isolation=isolation, call_timeout=30.0, check_budget=60.0, submission_budget=3.0)
    files = [SubmissionFile("first", REFERENCE), SubmissionFile("sleeps", SLEEPS), SubmissionFile("buggy", BUGGY)]
    with CheckProcess() as checks:
        reports = grade_files(files, rubric, slow, checks)
    assert [(report.student, report.status) for report in reports] == [
        ("first", "graded"),
        ("sleeps", "error"),
        ("buggy", "graded"),
    ]
    assert reports[0].score >= rubric.max_score and "longer than 3 s" in reports[1].error


SLOW_TO_EXPLAIN = TESTS / "submissions" / "slow_to_explain.py"
TIGHT = {"call_timeout": 1.0, "check_budget": 4.0}


def test_what_a_submission_does_after_its_checks_is_not_charged_to_the_next(rubric, isolation):
    limits = Limits(isolation=isolation, **TIGHT)
    with CheckProcess() as checks:
        _, after = checks.run_many([SLOW_TO_EXPLAIN.read_bytes(), REFERENCE.read_bytes()], rubric, limits)
        alone = checks.run(REFERENCE.read_bytes(), rubric, limits)
    assert after == alone
    assert all(result.status == "passed" for result in after.results) and after.pictures


def test_a_submission_over_its_budget_in_a_shared_run_fails_as_alone(rubric, isolation):
    limits = Limits(isolation=isolation, submission_budget=4.0, **TIGHT)
    with CheckProcess() as checks:
        slow = SubmissionFile("slow", SLOW_TO_EXPLAIN)
        alone = grade_files([slow], rubric, limits, checks)
        shared = grade_files([slow, SubmissionFile("first", REFERENCE), SubmissionFile("second", REFERENCE)], rubric, limits, checks)
    assert alone[0].status == shared[0].status == "error"
    assert "longer than 4 s" in shared[0].error
    assert [report.status for report in shared[1:]] == ["graded", "graded"]
