"""Grade one submission file: run the checks, then score them into a report."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.rubric import Rubric
from grader.runner import run_checks
from grader.sandbox import Limits
from grader.scoring import failed_run, score


def submission_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise UsageError(f"cannot read submission {path}: {error.strerror or error}") from None


def grade_file(path: Path, rubric: Rubric, limits: Limits, *, student: str | None = None) -> Report:
    """The report for one submission; a check run that breaks gives an ``error`` report."""
    digest = submission_digest(path)
    identity = {
        "student": student or path.stem,
        "submission": str(path),
        "submission_sha256": digest,
        "sandbox": limits.isolation,
    }
    started = time.monotonic()
    try:
        results = run_checks(path, rubric, limits)
    except GradingFailed as error:
        return failed_run(rubric, str(error), duration_s=time.monotonic() - started, **identity)
    return score(rubric, results, duration_s=time.monotonic() - started, **identity)
