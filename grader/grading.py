"""Grade one submission file: look at its bytes, run the checks, score them into a report."""

from __future__ import annotations

import hashlib
import io
import json
import time
import tokenize
from pathlib import Path

from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.rubric import Rubric
from grader.runner import CheckProcess, run_checks
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


def grade_file(
    path: Path, rubric: Rubric, limits: Limits, *, student: str | None = None, checks: CheckProcess | None = None
) -> Report:
    """The report for one submission; a check run that breaks gives an ``error`` report.

    ``checks`` is the check process to run in (a new one when None). Raises
    :class:`UsageError` only when the file cannot be read.
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
        run = checks.run(content, rubric, limits) if checks is not None else run_checks(content, rubric, limits)
    except GradingFailed as error:
        return failed_run(rubric, str(error), kind="grader_error", duration_s=time.monotonic() - started, **identity)
    return score(
        rubric,
        run.results,
        diagnoses=run.diagnoses,
        pictures=run.pictures,
        duration_s=time.monotonic() - started,
        **identity,
    )
