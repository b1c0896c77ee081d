"""Run the check library against one submission and return one result per check.

The checks run in a fresh ``python -m pytest`` process (trusted: it imports the checks
and the reference, never the submission), which starts the sandboxed worker itself.
Results come back through pytest-json-report's file, validated here; pytest's own
configuration discovery, conftest files and third-party plugins are all switched off so
that nothing around the grader changes a grade.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.errors import GradingFailed
from grader.resources import examples_cache
from grader.rubric import Rubric
from grader.sandbox import Limits

STATUSES = ("passed", "failed", "error", "timeout")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CHECKS_FOLDER = Path(__file__).resolve().parent / "checks"
PYTEST_INI = "[pytest]\npython_files = *.py\npython_functions = test_*\n"


@dataclass(frozen=True)
class CheckResult:
    """What one check found: its status, why, and on which input."""

    id: str
    status: str
    kind: str | None = None
    feedback: str | None = None
    counterexample: dict[str, Any] | None = None


def pytest_command(submission: Path, rubric: Rubric, limits: Limits, workdir: Path, *, replay: bool = True) -> list[str]:
    replay_options = [f"--attention-examples={examples_cache()}"] if replay else ["--attention-live"]
    return [
        sys.executable,
        "-m",
        "pytest",
        str(CHECKS_FOLDER),
        "-c",
        str(workdir / "pytest.ini"),
        "--rootdir",
        str(workdir),
        "--noconftest",
        # Checks fail through grader.expect, never bare asserts; and with python_files = *.py,
        # rewriting would recompile every module imported (about 4 s per submission).
        "--assert=plain",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "pytest_jsonreport.plugin",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "grader.plugin",
        "-W",
        "ignore",
        f"--attention-submission={submission}",
        f"--attention-rubric={rubric.path}",
        f"--attention-call-timeout={limits.call_timeout}",
        f"--attention-check-budget={limits.check_budget}",
        f"--attention-memory-mb={limits.memory_mb}",
        f"--attention-sandbox={limits.isolation}",
        *replay_options,
        "--json-report",
        f"--json-report-file={workdir / 'results.json'}",
        "--json-report-omit",
        "collectors",
        "keywords",
        "streams",
        "log",
        "traceback",
    ]


def _environment(home: Path) -> dict[str, str]:
    # Built from scratch: the grader's own environment (tokens, PYTEST_ADDOPTS,
    # HYPOTHESIS_* settings) must not reach the check run.
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(PACKAGE_ROOT),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }


def run_checks(content: bytes, rubric: Rubric, limits: Limits, *, replay: bool = True) -> list[CheckResult]:
    """Run every check of ``rubric`` on a submission's ``content``; one result per rubric check, in order.

    The checks read a private copy, so the graded bytes are the ones the caller read,
    whatever happens to the original file meanwhile. ``replay`` lets passing checks
    replay recorded examples (same results, much sooner; see grader.examples).
    """
    with tempfile.TemporaryDirectory(prefix="grader-run-") as folder:
        workdir = Path(folder)
        (workdir / "pytest.ini").write_text(PYTEST_INI)
        submission = workdir / "attention.py"
        submission.write_bytes(content)
        process = subprocess.Popen(
            pytest_command(submission, rubric, limits, workdir, replay=replay),
            cwd=workdir,
            env=_environment(workdir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=limits.submission_budget)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise GradingFailed(f"grading took longer than {limits.submission_budget:g} s") from None
        if process.returncode not in (0, 1):
            tail = output.decode("utf-8", "replace").strip().splitlines()[-5:]
            raise GradingFailed(f"the check run failed (pytest exit {process.returncode}): {' | '.join(tail)}")
        try:
            report = json.loads((workdir / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise GradingFailed(f"the check run wrote no readable results: {error}") from None
    return _results_in_rubric_order(report, rubric)


def _results_in_rubric_order(report: dict[str, Any], rubric: Rubric) -> list[CheckResult]:
    found: dict[str, CheckResult] = {}
    for test in report.get("tests", []):
        metadata = test.get("metadata") or {}
        check_id = metadata.get("check_id")
        if check_id in rubric.check_ids:
            found[check_id] = _result(check_id, test.get("outcome"), metadata)
    return [found.get(check_id) or _not_run(check_id) for check_id in rubric.check_ids]


def _result(check_id: str, outcome: Any, metadata: dict[str, Any]) -> CheckResult:
    status = metadata.get("status")
    if status not in STATUSES:
        # No call-stage metadata: the check could not even be set up.
        return CheckResult(check_id, "error", "grader_error", "the grader could not run this check")
    if outcome == "passed" and status != "passed":
        status = "error"
    counterexample = metadata.get("counterexample")
    return CheckResult(
        check_id,
        status,
        metadata.get("kind") if isinstance(metadata.get("kind"), str) else None,
        metadata.get("feedback") if isinstance(metadata.get("feedback"), str) else None,
        counterexample if isinstance(counterexample, dict) else None,
    )


def _not_run(check_id: str) -> CheckResult:
    return CheckResult(check_id, "error", "grader_error", "this check did not run; please report this to your instructor")
