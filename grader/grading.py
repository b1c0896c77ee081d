"""Grade one submission file: read it (grader.sources), run the checks, score them into a report."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import bounds, sources
from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.rubric import Rubric
from grader.runner import CheckProcess, CheckRun, run_checks
from grader.sandbox import Limits
from grader.scoring import failed_run, score


@dataclass(frozen=True)
class _Prepared:
    """A submission's bytes and report identity, or the report of a file that cannot be graded."""

    identity: dict[str, Any]
    content: bytes
    suffix: str
    unusable: Report | None


def _prepare(path: Path, rubric: Rubric, limits: Limits, student: str | None) -> _Prepared:
    content = sources.read_bytes(path)
    identity = {
        "student": student or path.stem,
        "submission": str(path),
        "submission_sha256": hashlib.sha256(content).hexdigest(),
        "sandbox": limits.isolation,
        "bounds": bounds.enforced(limits),
    }
    suffix = sources.NOTEBOOK_SUFFIX if sources.is_notebook_name(path.suffix) else ".py"
    try:
        # The check process reads the same bytes the same way; this reading is for the report.
        identity["source"] = sources.parse(content, suffix=suffix).summary()
    except sources.Unusable as error:
        unusable = failed_run(rubric, str(error), kind="unusable_submission", duration_s=0.0, **identity)
        return _Prepared(identity, content, suffix, unusable)
    return _Prepared(identity, content, suffix, None)


def _scored(prepared: _Prepared, rubric: Rubric, run: CheckRun) -> Report:
    return score(
        rubric, run.results, diagnoses=run.diagnoses, pictures=run.pictures, duration_s=run.duration_s,
        **prepared.identity,
    )


def grade_file(
    path: Path, rubric: Rubric, limits: Limits, *, student: str | None = None, checks: CheckProcess | None = None
) -> Report:
    """The report for one submission; a check run that breaks gives an ``error`` report.

    ``checks`` is the check process to run in (a new one when None). Raises
    :class:`UsageError` only when the file cannot be read.
    """
    prepared = _prepare(path, rubric, limits, student)
    if prepared.unusable is not None:
        return prepared.unusable
    started = time.monotonic()
    try:
        run = (checks.run if checks is not None else run_checks)(prepared.content, rubric, limits, suffix=prepared.suffix)
    except GradingFailed as error:
        return failed_run(rubric, str(error), kind="grader_error", duration_s=time.monotonic() - started, **prepared.identity)
    return _scored(prepared, rubric, run)


def grade_files(files: list[tuple[Path, str]], rubric: Rubric, limits: Limits, checks: CheckProcess) -> list[Report]:
    """Reports for ``(path, student)`` pairs, graded in one check run (see
    :meth:`CheckProcess.run_many`), in order, each as it would be alone. A file that
    cannot be read gets an error report. A run that breaks is run again one file at a
    time, so that only a file that breaks it alone gets an ``error`` report; so is a file
    that took longer than ``limits.submission_budget`` in the shared run (the budget is
    a submission's own, not borrowed from the others')."""
    reports: list[Report | None] = []
    graded: list[tuple[int, _Prepared]] = []
    for path, student in files:
        try:
            prepared = _prepare(path, rubric, limits, student)
        except UsageError as error:
            reports.append(failed_run(
                rubric, str(error), kind="unusable_submission", student=student, submission=str(path),
                submission_sha256="", sandbox=limits.isolation, duration_s=0.0,
            ))
            continue
        reports.append(prepared.unusable)
        if prepared.unusable is None:
            graded.append((len(reports) - 1, prepared))
    if len(graded) > 1:
        try:
            runs = checks.run_many(
                [prepared.content for _, prepared in graded], rubric, limits,
                suffixes=[prepared.suffix for _, prepared in graded],
            )
        except GradingFailed:
            runs = None
        if runs is not None:
            over_budget = []
            for (index, prepared), run in zip(graded, runs):
                if run.duration_s > limits.submission_budget:
                    over_budget.append((index, prepared))
                else:
                    reports[index] = _scored(prepared, rubric, run)
            graded = over_budget
    for index, prepared in graded:
        started = time.monotonic()
        try:
            reports[index] = _scored(prepared, rubric, checks.run(prepared.content, rubric, limits, suffix=prepared.suffix))
        except GradingFailed as error:
            reports[index] = failed_run(
                rubric, str(error), kind="grader_error", duration_s=time.monotonic() - started, **prepared.identity
            )
    return reports
