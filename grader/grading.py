"""Grade one submission file: look at its bytes, run the checks, score them into a report."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.rubric import Rubric
from grader.runner import run_checks
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


def grade_file(path: Path, rubric: Rubric, limits: Limits, *, student: str | None = None) -> Report:
    """The report for one submission; a check run that breaks gives an ``error`` report.

    Raises :class:`UsageError` only when the file cannot be read.
    """
    content = read_submission(path)
    identity = {
        "student": student or path.stem,
        "submission": str(path),
        "submission_sha256": hashlib.sha256(content).hexdigest(),
        "sandbox": limits.isolation,
    }
    started = time.monotonic()
    reason = unusable_reason(content)
    if reason is not None:
        return failed_run(rubric, reason, kind="unusable_submission", duration_s=0.0, **identity)
    try:
        results = run_checks(content, rubric, limits)
    except GradingFailed as error:
        return failed_run(rubric, str(error), kind="grader_error", duration_s=time.monotonic() - started, **identity)
    return score(rubric, results, duration_s=time.monotonic() - started, **identity)
