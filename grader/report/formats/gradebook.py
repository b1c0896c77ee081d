"""Gradebooks as CSV: ``grades.csv`` (one column per check) and Canvas's import format.

Every cell goes through :func:`_cell` as the file is written, so a student id such as
``=HYPERLINK(...)`` is text in a spreadsheet, never a formula, and no control character
reaches it raw; every cell is quoted, so no line break or carriage return could end a row.
"""

from __future__ import annotations

import csv
import io
import re

from grader.assignments.rubric import Rubric
from grader.report import Report
from grader.report.safe_text import one_line

# Canvas's "Download Submissions" names each file <name>_[LATE_]<user id>_<file id>_<file>.
CANVAS_DOWNLOAD_NAME = re.compile(r"^(?P<name>[^_]+)_(?:LATE_|late_)?(?P<user_id>\d+)_\d+_.+$")
CANVAS_IDENTITY_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _cell(text: str) -> str:
    # A spreadsheet runs a cell that starts with one of these as a formula.
    text = one_line(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv(rows: list[list[str]]) -> str:
    stream = io.StringIO()
    csv.writer(stream, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows([[_cell(cell) for cell in row] for row in rows])
    return stream.getvalue()


def grades_csv(reports: list[Report], rubric: Rubric) -> str:
    """One row per student: total, status and the points of every check."""
    rows = [["student", "score", "max_score", "status", *rubric.check_ids]]
    for report in reports:
        points = {check.id: f"{check.points:g}" for check in report.checks}
        rows.append(
            [report.student, f"{report.score:g}", f"{report.max_score:g}", report.status]
            + [points.get(check_id, "") for check_id in rubric.check_ids]
        )
    return _csv(rows)


def canvas_csv(reports: list[Report], assignment: str, points_possible: float) -> str:
    """A file for Canvas's Grades > Import: the identity columns Canvas matches students
    on, then one column for the assignment.

    A submission downloaded from Canvas keeps its file name, which carries the student's
    Canvas user id: that fills ``ID``. Any other id is taken to be the student's login
    (``SIS Login ID``), as when submissions are named after students' usernames. A
    submission the grader could not finish grading gets an empty cell (no score), not 0;
    so does each of two or more submissions of one Canvas user (two files in one attempt:
    which one counts is the instructor's call, see :func:`canvas_clashes`).
    """
    clashing = {student for students in canvas_clashes(reports).values() for student in students}
    rows = [[*CANVAS_IDENTITY_COLUMNS, assignment], ["Points Possible", "", "", "", "", f"{points_possible:g}"]]
    for report in reports:
        download = CANVAS_DOWNLOAD_NAME.match(report.student)
        if download:
            identity = [download["name"], download["user_id"], "", "", ""]
        else:
            identity = [report.student, "", "", report.student, ""]
        unfinished = any(check.kind == "grader_error" for check in report.checks)
        rows.append([*identity, "" if unfinished or report.student in clashing else f"{report.score:g}"])
    return _csv(rows)


def canvas_clashes(reports: list[Report]) -> dict[str, list[str]]:
    """The Canvas users (a user id, or a login as Canvas matches it, case aside) that more
    than one submission names, each with those submissions' ids."""
    by_user: dict[str, list[str]] = {}
    for report in reports:
        download = CANVAS_DOWNLOAD_NAME.match(report.student)
        user = download["user_id"] if download else report.student.casefold()
        by_user.setdefault(user, []).append(report.student)
    return {user: students for user, students in by_user.items() if len(students) > 1}
