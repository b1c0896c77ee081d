"""One check process grades submission after submission (several in one run), and survives the ones that break it."""

from __future__ import annotations

import dataclasses
import os
import signal

import pytest
from conftest import HEADS, REFERENCE, TESTS, VARIANTS

from grader.engine.grading import grade_files
from grader.engine.runner import CheckProcess, run_checks
from grader.errors import GradingFailed
from grader.sandbox import Limits
from grader.sources.files import SubmissionFile

BUGGY = VARIANTS / "mask_inverted.py"
SLEEPS = TESTS / "submissions" / "sleeps_in_softmax.py"
SLOW_DIAGNOSIS = TESTS / "submissions" / "slow_only_when_diagnosed.py"
IMPORT_SLEEPER = TESTS / "hostile" / "sleeps_forever_at_import.py"
TIES = TESTS / "submissions" / "waits_for_a_unique_maximum.py"
COUNTER = TESTS / "submissions" / "hangs_after_six_calls.py"


def test_results_do_not_depend_on_what_the_process_graded_before(rubric, isolation):
    limits = Limits(isolation=isolation)
    with CheckProcess() as checks:
        sequence = [checks.run(path.read_bytes(), rubric, limits) for path in (REFERENCE, BUGGY, REFERENCE)]
    assert sequence[0] == sequence[2]
    assert all(result.status == "passed" for result in sequence[0].results)
    assert sequence[1] == run_checks(BUGGY.read_bytes(), rubric, limits)


def test_a_submission_slower_than_its_budget_is_graded_within_it(rubric, isolation):
    """A function that never returns, with a call timeout longer than the submission's
    budget: the checks share what the budget leaves them, and time out saying so; the
    submission is graded, within its budget, and the next one is not charged for it."""
    slow = Limits(isolation=isolation, call_timeout=30.0, check_budget=60.0, submission_budget=6.0)
    with CheckProcess() as checks:
        run = checks.run(SLEEPS.read_bytes(), rubric, slow)
        after = checks.run(REFERENCE.read_bytes(), rubric, Limits(isolation=isolation))
    assert run.duration_s <= slow.submission_budget
    softmax = [result for result in run.results if result.id.startswith("softmax.")]
    assert softmax and all(result.status == "timeout" and "used up" in result.feedback for result in softmax)
    assert all(result.status == "passed" for result in after.results)


def test_a_submission_past_its_budget_before_its_checks_fails_alone(rubric, isolation):
    """Only what the checks cannot bound (an import allowed longer than the whole budget)
    still stops the check run at the submission's deadline."""
    slow = Limits(isolation=isolation, submission_budget=3.0)
    with CheckProcess() as checks:
        with pytest.raises(GradingFailed, match="longer than 3 s"):
            checks.run(IMPORT_SLEEPER.read_bytes(), rubric, slow)
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
    slow = Limits(isolation=isolation, submission_budget=3.0)
    files = [SubmissionFile("first", REFERENCE), SubmissionFile("sleeps", IMPORT_SLEEPER), SubmissionFile("buggy", BUGGY)]
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
        slow = SubmissionFile("slow", IMPORT_SLEEPER)
        alone = grade_files([slow], rubric, limits, checks)
        shared = grade_files([slow, SubmissionFile("first", REFERENCE), SubmissionFile("second", REFERENCE)], rubric, limits, checks)
    assert alone[0].status == shared[0].status == "error"
    assert "longer than 4 s" in shared[0].error
    assert [report.status for report in shared[1:]] == ["graded", "graded"]


def test_a_function_that_hangs_only_on_some_inputs_is_told_one_it_hangs_on_and_one_it_answers(rubric, isolation):
    """softmax hangs on tied maxima only: its checks time out on Hypothesis's large inputs,
    and the diagnosis finds a small probe it hangs on (the -inf row) and one it answers."""
    checks = tuple(check for check in rubric.checks if check.id in ("softmax.rows_sum_to_one", "softmax.large_logits"))
    run = run_checks(TIES.read_bytes(), dataclasses.replace(rubric, checks=checks), Limits(isolation=isolation, **TIGHT))
    assert [result.status for result in run.results] == ["timeout", "timeout"]
    told = [diagnosis["message"] for diagnosis in run.diagnoses]
    assert told[0].startswith("softmax hangs on some inputs: softmax(np.array([[-np.inf, -np.inf, -np.inf], [1.0, 2.0, 3.0]])) did not return within 1 s, even as the first call of a fresh process, though softmax(")


def test_a_hang_that_depends_on_earlier_calls_is_not_told_as_one_on_some_inputs(rubric, isolation):
    """softmax spins from its seventh call in a process on: a probe that does not return
    returns when called first in a fresh process, so no input is said to make it hang."""
    checks = tuple(check for check in rubric.checks if check.id in ("softmax.rows_sum_to_one", "softmax.large_logits"))
    run = run_checks(COUNTER.read_bytes(), dataclasses.replace(rubric, checks=checks), Limits(isolation=isolation, **TIGHT))
    assert "timeout" in [result.status for result in run.results]
    assert not any("hangs on some inputs" in diagnosis["message"] for diagnosis in run.diagnoses), run.diagnoses
