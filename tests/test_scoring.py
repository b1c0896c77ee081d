"""Pure scoring: points, bonus, and whole-submission errors."""

from __future__ import annotations

from grader.engine.runner import CheckResult
from grader.engine.scoring import failed_run, score

IDENTITY = {"student": "ada", "submission": "ada.py", "submission_sha256": "0" * 64, "duration_s": 1.23456}


def test_points_come_from_passed_checks_only_and_bonus_adds_on_top(rubric):
    results = [CheckResult(c.id, "passed" if i % 2 == 0 else "failed", None, None, None) for i, c in enumerate(rubric.checks)]
    report = score(rubric, results, **IDENTITY)
    expected = sum(c.points for i, c in enumerate(rubric.checks) if i % 2 == 0)
    assert report.score == expected
    assert report.max_score == rubric.max_score
    assert report.status == "graded" and report.error is None
    assert report.duration_s == 1.235
    assert [entry.id for entry in report.checks] == list(rubric.check_ids)


def test_an_unimportable_submission_is_an_error_report(rubric):
    message = "attention.py could not be imported: SyntaxError at line 4: expected ':'"
    results = [CheckResult(c.id, "error", "import_failed", message, None) for c in rubric.checks]
    report = score(rubric, results, **IDENTITY)
    assert report.status == "error" and report.error == message and report.score == 0


def test_one_missing_function_is_not_a_submission_error(rubric):
    results = [
        CheckResult(c.id, "error", "missing_function", "missing", None)
        if c.id.startswith("self_attention")
        else CheckResult(c.id, "passed", None, None, None)
        for c in rubric.checks
    ]
    report = score(rubric, results, **IDENTITY)
    assert report.status == "graded"
    assert report.score == sum(c.points for c in rubric.checks if not c.id.startswith("self_attention"))


def test_a_failed_run_scores_zero_with_the_reason(rubric):
    report = failed_run(rubric, "grading took longer than 900 s", kind="grader_error", **IDENTITY)
    assert report.status == "error" and report.score == 0
    assert report.error == "grading took longer than 900 s"
    assert all(entry.status == "error" for entry in report.checks)
