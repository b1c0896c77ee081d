"""Grade a folder of submissions: find them, grade them in parallel, write the gradebook.

A submission is ``DIR/<id>.py`` or ``DIR/<id>/attention.py``. Each gets
``OUT/<id>.json``; the batch ends with ``OUT/summary.json`` and ``OUT/grades.csv``.
One bad submission never stops the batch: it gets a report with status ``error``.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from grader import __version__
from grader.errors import UsageError
from grader.grading import grade_file
from grader.report import SCHEMA_VERSION, Report, to_json, write_atomic
from grader.rubric import Rubric
from grader.sandbox import Limits
from grader.scoring import rubric_summary

RESERVED_IDS = frozenset({"summary"})


@dataclass(frozen=True)
class SubmissionFile:
    student: str
    path: Path


def find_submissions(folder: Path) -> list[SubmissionFile]:
    """Every submission in ``folder``, sorted by id; clashing ids are an error."""
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    found: dict[str, SubmissionFile] = {}
    candidates = [(p.stem, p) for p in folder.glob("*.py")]
    candidates += [(p.parent.name, p) for p in folder.glob("*/attention.py")]
    for student, path in sorted(candidates):
        if student.startswith("."):
            continue
        if student in RESERVED_IDS:
            raise UsageError(f"submission id {student!r} ({path}) clashes with the batch's {student}.json; rename it")
        if student in found:
            raise UsageError(f"two submissions have the id {student!r}: {found[student].path} and {path}")
        found[student] = SubmissionFile(student, path)
    if not found:
        raise UsageError(f"no submissions in {folder}: expected {folder}/<id>.py or {folder}/<id>/attention.py")
    return list(found.values())


def grade_folder(
    folder: Path,
    out: Path,
    rubric: Rubric,
    limits: Limits,
    *,
    jobs: int,
    on_report: Callable[[Report, int, int], None] = lambda report, done, total: None,
) -> list[Report]:
    """Grade every submission in ``folder`` into ``out``; return the reports sorted by id."""
    submissions = find_submissions(folder)
    out.mkdir(parents=True, exist_ok=True)
    reports = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grade_file, s.path, rubric, limits, student=s.student) for s in submissions]
        for done, future in enumerate(as_completed(futures), start=1):
            report = future.result()
            write_atomic(out / f"{report.student}.json", to_json(report))
            reports.append(report)
            on_report(report, done, len(submissions))
    reports.sort(key=lambda report: report.student)
    write_atomic(out / "summary.json", json.dumps(summary(reports, rubric), indent=2) + "\n")
    write_atomic(out / "grades.csv", gradebook_csv(reports, rubric))
    return reports


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


def _cell(text: str) -> str:
    # A spreadsheet runs a cell that starts with one of these as a formula.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def gradebook_csv(reports: list[Report], rubric: Rubric) -> str:
    """One row per student: total, status and the points of every check."""
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(["student", "score", "max_score", "status", *rubric.check_ids])
    for report in reports:
        points = {check.id: f"{check.points:g}" for check in report.checks}
        writer.writerow(
            [_cell(report.student), f"{report.score:g}", f"{report.max_score:g}", report.status]
            + [points.get(check_id, "") for check_id in rubric.check_ids]
        )
    return stream.getvalue()
