"""Grade one submission file: look at its bytes, run the checks, score them into a report."""

from __future__ import annotations

import hashlib
import io
import json
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.rubric import Rubric
from grader.runner import CheckProcess, CheckRun, run_checks
from grader.sandbox import Limits
from grader.scoring import failed_run, score

MAX_SUBMISSION_BYTES = 1024 * 1024


def read_submission(path: Path) -> bytes:
    """The submission's bytes, read once: every later step grades exactly these."""
    try:
        size = path.stat().st_size
        if size > MAX_SUBMISSION_BYTES:
            raise UsageError(f"{path} is {size} bytes; a submission may be at most {MAX_SUBMISSION_BYTES} bytes")
        return path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read submission {path}: {error.strerror or error}") from None


def unusable_reason(content: bytes) -> str | None:
    """A sentence for a file that cannot be a Python submission at all, else None."""
    if not content.strip():
        return "attention.py is empty: write the four functions from the lesson in it"
    encoding_problem = _encoding_problem(content)
    if encoding_problem is not None:
        return encoding_problem
    if content.lstrip().startswith(b"{"):
        try:
            notebook = json.loads(content)
        except ValueError:
            return None
        if isinstance(notebook, dict) and "cells" in notebook:
            return (
                "attention.py is a Jupyter notebook, not a Python file: in Jupyter use "
                "File > Download as > Python (.py) and submit that file"
            )
    return None


def _encoding_problem(content: bytes) -> str | None:
    """Decide text encoding here, as PEP 263 says, rather than leave it to the import machinery,
    which accepts some undecodable bytes on some Python versions: the grade must not depend
    on the Python that runs the worker."""
    if b"\x00" in content:
        return "attention.py is not a text file (it contains NUL bytes): submit your Python source file"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    except SyntaxError:
        return "attention.py does not start as UTF-8 text and declares no known encoding: save it as UTF-8"
    try:
        content.decode(encoding)
    except UnicodeDecodeError as error:
        line = content[: error.start].count(b"\n") + 1
        return (
            f"attention.py is not valid {encoding} text (byte {content[error.start]:#04x} on line {line}): "
            "save it as UTF-8, or declare its encoding in a '# -*- coding: ... -*-' first line"
        )
    return None


@dataclass(frozen=True)
class _Prepared:
    """A submission's bytes and report identity, or the report of a file that cannot be graded."""

    identity: dict[str, str]
    content: bytes
    unusable: Report | None


def _prepare(path: Path, rubric: Rubric, limits: Limits, student: str | None) -> _Prepared:
    content = read_submission(path)
    identity = {
        "student": student or path.stem,
        "submission": str(path),
        "submission_sha256": hashlib.sha256(content).hexdigest(),
        "sandbox": limits.isolation,
    }
    reason = unusable_reason(content)
    unusable = None if reason is None else failed_run(
        rubric, reason, kind="unusable_submission", duration_s=0.0, **identity
    )
    return _Prepared(identity, content, unusable)


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
        run = checks.run(prepared.content, rubric, limits) if checks is not None else run_checks(prepared.content, rubric, limits)
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
            runs = checks.run_many([prepared.content for _, prepared in graded], rubric, limits)
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
            reports[index] = _scored(prepared, rubric, checks.run(prepared.content, rubric, limits))
        except GradingFailed as error:
            reports[index] = failed_run(
                rubric, str(error), kind="grader_error", duration_s=time.monotonic() - started, **prepared.identity
            )
    return reports
