"""Grade a folder of submissions: find them (grader.submissions), grade them
(grader.executors), write the gradebook.

Each submission gets ``OUT/<id>.json``; the batch ends with ``OUT/summary.json`` and
``OUT/grades.csv``. This module is the batch's only writer, whichever executor grades.
One bad submission never stops the batch: it gets a report with status ``error``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path

from grader import __version__, assignments, sources
from grader.errors import UsageError
from grader.executors import Executor, local
from grader.formats.gradebook import grades_csv
from grader.report import (
    SCHEMA_VERSION,
    Report,
    from_json,
    to_json,
    without_details,
    write_atomic,
)
from grader.rubric import Rubric
from grader.safe_text import json_text
from grader.sandbox import Limits
from grader.scoring import rubric_summary
from grader.sources.files import SubmissionFile
from grader.submissions import find_submissions

def grade_folder(
    folder: Path,
    out: Path,
    rubric: Rubric,
    limits: Limits,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    regrade: bool = False,
    on_report: Callable[[Report, int, int, bool], None] = lambda report, done, total, kept: None,
) -> list[Report]:
    """Grade every submission in ``folder`` into ``out``; return the reports sorted by id,
    without their details (see report.without_details, and :func:`read_in_full`), so
    memory does not grow with the batch.

    ``executor`` grades (grader.executors; by default :mod:`grader.executors.local` with
    ``jobs`` jobs). A report already in ``out`` for the same file content, rubric, grader
    version, sandbox and examples (grader.secret) is kept (so a killed batch resumes where it stopped) unless
    ``regrade``. ``on_report(report, done, total, kept)`` is called with each full report
    as its submission finishes.
    """
    submissions = find_submissions(folder, assignments.get(rubric.assignment).handout)
    out.mkdir(parents=True, exist_ok=True)
    reports = []
    pending = []
    for submission in submissions:
        kept = None if regrade else _kept_report(out, submission, rubric, limits)
        if kept is None:
            pending.append(submission)
        else:
            reports.append(without_details(kept))
            on_report(kept, len(reports), len(submissions), True)
    grade = executor or functools.partial(local.reports, jobs=jobs)
    # Closed at once on Ctrl-C: the executor starts nothing new, and what is in flight is dropped.
    with contextlib.closing(grade(pending, rubric, limits)) as graded:
        for report in graded:
            write_atomic(out / f"{report.student}.json", to_json(report))
            reports.append(without_details(report))
            on_report(report, len(reports), len(submissions), False)
    reports.sort(key=lambda report: report.student)
    write_atomic(out / "summary.json", json_text(summary(reports, rubric), indent=2) + "\n")
    write_atomic(out / "grades.csv", grades_csv(reports, rubric))
    return reports


def read_in_full(out: Path, reports: list[Report]) -> Iterator[Report]:
    """Each of ``reports`` (from :func:`grade_folder`) in full, read back from ``out`` one
    at a time; as it is if its file is gone or no longer a report."""
    for report in reports:
        try:
            full = from_json((out / f"{report.student}.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            full = None
        yield full if full is not None and full.student == report.student else report


def _kept_report(out: Path, submission: SubmissionFile, rubric: Rubric, limits: Limits) -> Report | None:
    try:
        previous = from_json((out / f"{submission.student}.json").read_text(encoding="utf-8"))
        # Read as grading reads it: a link, a pipe or an oversized file is graded again
        # (into its error report), never opened or read whole here.
        digest = hashlib.sha256(sources.read_bytes(submission.path, within=submission.folder)).hexdigest()
    except (OSError, UnicodeDecodeError, UsageError):
        return None
    if previous is None:
        return None
    same = (
        previous.submission_sha256 == digest
        and previous.rubric.get("sha256") == rubric.sha256
        and previous.grader_version == __version__
        and previous.sandbox == limits.isolation
        and previous.examples == limits.examples
        and previous.assignment == rubric.assignment
    )
    return previous if same else None


def summary(reports: list[Report], rubric: Rubric) -> dict:
    scores = [report.score for report in reports]
    return {
        "schema_version": SCHEMA_VERSION,
        "grader_version": __version__,
        "rubric": rubric_summary(rubric),
        "max_score": rubric.max_score,
        "count": len(reports),
        "graded": sum(report.status == "graded" for report in reports),
        "errors": sum(report.status == "error" for report in reports),
        "mean_score": round(statistics.fmean(scores), 3) if scores else None,
        "median_score": statistics.median(scores) if scores else None,
        "submissions": [
            {
                "student": report.student,
                "submission": report.submission,
                "score": report.score,
                "max_score": report.max_score,
                "status": report.status,
                "error": report.error,
                "report": f"{report.student}.json",
            }
            for report in reports
        ],
    }
