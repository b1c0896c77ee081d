"""Gradescope's ``results.json``: one test per check, visibility taken from the rubric.

Gradescope shows each test's name, score out of ``max_score`` and ``output``, honouring
each test's ``visibility`` (``visible``, ``hidden``, ``after_due_date``: the rubric's
own words). A bonus check is a test worth 0 whose score is its points, which is how
Gradescope shows extra credit; so the ``max_score`` of the tests adds up to the
rubric's. The top-level ``output`` never speaks of checks the student cannot see: not
their points, not the mistakes they found, not the grader's own errors.
"""

from __future__ import annotations

from typing import Any

from grader.report import CheckEntry, Report, check_details, score_summary, source_lines
from grader.report.safe_text import json_text


def results(report: Report) -> dict[str, Any]:
    """The report as a Gradescope ``results.json`` object."""
    return {
        "score": report.score,
        "execution_time": report.duration_s,
        "output": _overall_output(report),
        "output_format": "text",
        "test_output_format": "text",
        "tests": [_test(number, check) for number, check in enumerate(report.checks, start=1)],
        "extra_data": {
            "student": report.student,
            "submission_sha256": report.submission_sha256,
            "grader_version": report.grader_version,
            "rubric_sha256": report.rubric.get("sha256"),
            "sandbox": report.sandbox,
            "status": report.status,
        },
    }


def results_json(report: Report) -> str:
    """Gradescope's ``results.json``: the score, and a test per check with its points, the
    rubric's visibility and the feedback, per Gradescope's autograder specification."""
    return json_text(results(report), indent=2) + "\n"


def _test(number: int, check: CheckEntry) -> dict[str, Any]:
    name = f"{check.id}: {check.description}" if check.description else check.id
    return {
        "name": name + (" (bonus)" if check.bonus else ""),
        "number": str(number),
        "score": check.points,
        "max_score": 0.0 if check.bonus else check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": "\n".join(check_details(check)) if check.status != "passed" else "",
        "visibility": check.visibility,
    }


def _overall_output(report: Report) -> str:
    visible = [check for check in report.checks if check.visibility == "visible"]
    if len(visible) == len(report.checks):
        lines = [score_summary(report)]
    else:  # the total would tell what the checks out of sight found
        earned = sum(check.points for check in visible if not check.bonus)
        possible = sum(check.max_points for check in visible if not check.bonus)
        lines = [f"Visible checks: {earned:g}/{possible:g} points; more checks are graded out of sight."]
    if any(check.kind == "grader_error" for check in report.checks):
        lines.append("The grader could not finish grading this submission; your instructor has the details.")
    elif report.error:
        lines.append(report.error)
    # A diagnosis could give away what a hidden check found, so diagnoses are shown only
    # when every failed check is one the student can see.
    failed_out_of_sight = any(check.status != "passed" and check.visibility != "visible" for check in report.checks)
    if report.diagnoses and not failed_out_of_sight:
        lines += ["", "What went wrong:"]
        lines += [f"- {diagnosis['message']}" for diagnosis in report.diagnoses]
    if report.source:
        lines += ["", "How the file was read:", *source_lines(report.source)]
    return "\n".join(lines)
