"""GitHub Classroom's autograding result: what ``classroom-resources/autograding-grading-reporter``
reads from a step's ``result`` output.

The reporter base64-decodes the JSON, records ``Σ tests[].score`` out of ``max_score``
and fails the job unless ``status`` is ``pass`` (here: every check but the bonus passed). So every check is a test carrying its
points (a bonus check's points count toward the total, as in every other report), and
``max_score`` is the rubric's.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from grader import assignments
from grader.report import CheckEntry, Report, check_details
from grader.report.safe_text import json_text
from grader.sources import display_name

STATUSES = {"passed": "pass", "failed": "fail", "error": "error", "timeout": "error"}


def result(report: Report) -> dict[str, Any]:
    """The reporter's JSON for one report."""
    if report.status == "error":
        status = "error"
    elif all(check.status == "passed" for check in report.checks if not check.bonus):
        status = "pass"
    else:
        status = "fail"
    return {
        "version": 1,
        "status": status,
        "max_score": report.max_score,
        "tests": [_test(check, _filename(report)) for check in report.checks],
    }


def _filename(report: Report) -> str:
    return display_name(Path(report.submission).suffix, assignments.get(report.assignment).handout)


def _test(check: CheckEntry, filename: str) -> dict[str, Any]:
    failed = check.status != "passed"
    return {
        "name": check.id + (" (bonus)" if check.bonus else ""),
        "status": STATUSES[check.status],
        "score": check.points,
        "message": "\n".join(check_details(check)) if failed else "",
        "filename": filename,
        "line_no": 0,
    }


def encoded_result(report: Report) -> str:
    """The ``result`` step output GitHub Classroom's autograding reporter reads: base64 of
    the JSON of its tests and points, on one line."""
    text = json_text(result(report), separators=(",", ":"))
    return base64.b64encode(text.encode("utf-8")).decode("ascii") + "\n"
