"""Pure scoring: (rubric, check results) -> report. No I/O, no clock, no randomness."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grader import __version__
from grader.assignments.rubric import Rubric
from grader.engine.runner import CheckResult
from grader.report import CheckEntry, Report

IMPORT_KINDS = ("import_failed", "import_timeout")


def score(
    rubric: Rubric,
    results: list[CheckResult],
    *,
    student: str,
    submission: str,
    submission_sha256: str,
    duration_s: float,
    sandbox: str = "process",
    examples: str = "public",
    diagnoses: list[dict[str, str]] | None = None,
    pictures: dict[str, Any] | None = None,
    source: dict[str, Any] | None = None,
    bounds: dict[str, Any] | None = None,
    limits: dict[str, float] | None = None,
) -> Report:
    """Points for each passed check; a submission that could not be imported is an error.
    ``diagnoses`` (the known mistakes it shows) only explain: they never change points;
    ``source`` says how a notebook was read (see grader.sources)."""
    by_id = {result.id: result for result in results}
    entries = []
    for check in rubric.checks:
        result = by_id[check.id]
        entries.append(
            CheckEntry(
                id=check.id,
                description=check.description,
                status=result.status,
                points=check.points if result.status == "passed" else 0.0,
                max_points=check.points,
                visibility=check.visibility,
                bonus=check.bonus,
                kind=result.kind,
                feedback=result.feedback,
                counterexample=result.counterexample,
            )
        )
    unimportable = bool(entries) and all(entry.kind in IMPORT_KINDS for entry in entries)
    return Report(
        student=student,
        submission=submission,
        submission_sha256=submission_sha256,
        score=sum(entry.points for entry in entries),
        max_score=rubric.max_score,
        status="error" if unimportable else "graded",
        error=entries[0].feedback if unimportable else None,
        checks=entries,
        rubric=rubric_summary(rubric),
        grader_version=__version__,
        duration_s=round(duration_s, 3),
        sandbox=sandbox,
        examples=examples,
        assignment=rubric.assignment,
        diagnoses=list(diagnoses or []),
        pictures=dict(pictures or {}),
        source=source,
        bounds=bounds,
        limits=limits,
    )


def failed_run(rubric: Rubric, reason: str, *, kind: str, **identity: Any) -> Report:
    """The report of a submission that was not checked at all (``identity`` as for :func:`score`)."""
    results = [CheckResult(check.id, "error", kind, reason) for check in rubric.checks]
    report = score(rubric, results, **identity)
    return replace(report, status="error", error=reason)


def rubric_summary(rubric: Rubric) -> dict[str, str]:
    return {"name": rubric.name, "title": rubric.title, "path": rubric.read_from or rubric.path, "sha256": rubric.sha256}


def rescored(rubric: Rubric, report: Report) -> Report | None:
    """``report`` with each check's points and the total worked out again from its checks'
    statuses and ``rubric``; None if its checks are not the rubric's (their ids, their
    order, their points), or if any number it states differs from the one worked out."""
    if [entry.id for entry in report.checks] != [check.id for check in rubric.checks]:
        return None
    entries = [
        replace(entry, points=check.points if entry.status == "passed" else 0.0, max_points=check.points, bonus=check.bonus)
        for entry, check in zip(report.checks, rubric.checks)
    ]
    again = replace(report, checks=entries, score=sum(entry.points for entry in entries), max_score=rubric.max_score)
    return again if again == report else None
