"""Run the check library against one submission and return one result per check.

The checks run in a check process (:mod:`grader.engine.check_process`; trusted: it imports the
checks and the reference, never the submission) that calls ``pytest.main`` once per
submission and starts each submission's sandboxed worker itself.
Results come back through pytest-json-report's file, validated here; pytest's own
configuration discovery, conftest files and third-party plugins are all switched off so
that nothing around the grader changes a grade.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.assignments.rubric import Rubric
from grader.errors import GradingFailed
from grader.resources import PACKAGE, examples_cache
from grader.sandbox import Limits, kill_session

STATUSES = ("passed", "failed", "error", "timeout")
PACKAGE_ROOT = PACKAGE.parent  # where `import grader` finds this grader
# unraisableexception alone runs gc.collect twice per session (about 40 ms); logging and
# warnings wrap every phase of every check (warnings are ignored: PYTHONWARNINGS below).
UNUSED_PYTEST_PLUGINS = (
    "cacheprovider", "unraisableexception", "threadexception", "doctest", "junitxml",
    "pastebin", "stepwise", "unittest", "subtests", "setuponly", "setupplan", "logging", "warnings",
)
GRACEFUL_STOP_S = 2.0
# The plugin collects the check modules itself (by their package names: see
# grader.engine.plugin.CheckModule), so pytest's own pattern must match none of them.
PYTEST_INI = "[pytest]\npython_files = collected-by-grader.engine.plugin\npython_functions = test_*\n"


@dataclass(frozen=True)
class CheckResult:
    """What one check found: its status, why, and on which input."""

    id: str
    status: str
    kind: str | None = None
    feedback: str | None = None
    counterexample: dict[str, Any] | None = None


@dataclass(frozen=True)
class CheckRun:
    """Everything one check run found: a result per rubric check, in rubric order, the
    known mistakes the submission's answers match, its attention weights on fixed inputs
    for the HTML report (see grader.diagnoses), and how long its checks took (which
    measures the machine, so two runs that found the same are equal)."""

    results: list[CheckResult]
    diagnoses: list[dict[str, str]]
    pictures: dict[str, Any]
    duration_s: float = field(default=0.0, compare=False)


def pytest_arguments(
    submissions: list[Path],
    rubric: Rubric,
    limits: Limits,
    workdir: Path,
    *,
    replay: bool = True,
    claims: Path | None = None,
) -> list[str]:
    """The pytest command line that runs the checks on ``submissions`` (without ``python -m
    pytest``); with ``claims``, a folder of grader.engine.claims, only those this run claims."""
    assignment = rubric.of
    run_options = [f"--attention-examples={examples_cache()}"] if replay else ["--attention-live"]
    if limits.course_key is not None:
        run_options.append(f"--attention-course-key={limits.course_key}")
    if claims is not None:
        run_options.append(f"--attention-claims={claims}")
    return [
        *(str(folder) for folder in assignment.checks_folders),
        "-c",
        str(workdir / "pytest.ini"),
        "--rootdir",
        str(workdir),
        "--noconftest",
        # Checks fail through grader.checking.expect, never bare asserts; and rewriting
        # would recompile every module imported (about 4 s per submission).
        "--assert=plain",
        "-q",
        # Results travel as report metadata, so no traceback is formatted (about 20 ms per
        # failed check), and pytest's plugins for things the checks never do are off.
        "--tb=no",
        # Checks print nothing; a run's output goes to a file anyway.
        "--capture=no",
        *(option for name in UNUSED_PYTEST_PLUGINS for option in ("-p", f"no:{name}")),
        "-p",
        "pytest_jsonreport.plugin",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "grader.engine.pytest_entry",
        *(f"--attention-submission={submission}" for submission in submissions),
        # Resolved here: the check process runs in a folder of its own.
        # An outside assignment by its folder: the check process starts with no PYTHONPATH
        # but the grader's, so it may not find an installed course package by name.
        f"--attention-assignment={assignment.folder or assignment.spec}",
        f"--attention-rubric={Path(rubric.path).resolve()}",
        f"--attention-call-timeout={limits.call_timeout}",
        f"--attention-check-budget={limits.check_budget}",
        f"--attention-submission-budget={limits.submission_budget}",
        f"--attention-memory-mb={limits.memory_mb}",
        f"--attention-max-processes={limits.max_processes}",
        f"--attention-sandbox={limits.isolation}",
        *run_options,
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
        "PYTHONWARNINGS": "ignore",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }


class CheckProcess:
    """A trusted check process (:mod:`grader.engine.check_process`) that grades submissions one
    after another; started at once, so its imports overlap whatever the caller does next.

    A run that breaks the process (a crash, or a submission over its budget, which kills
    the process with its worker) fails that submission only: the next run starts a new
    process. Not thread-safe: give each parallel job its own.
    """

    def __init__(self) -> None:
        self._home = Path(tempfile.mkdtemp(prefix="grader-checks-"))
        self._process: subprocess.Popen | None = None
        self._start()

    def _start(self) -> None:
        # Its stderr outside runs (a failed start, say) lands in a file quoted on failure.
        with open(self._home / "stderr.txt", "wb") as errors:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "grader.engine.check_process"],
                cwd=self._home,
                env=_environment(self._home),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=True,
            )

    def run(
        self, content: bytes, rubric: Rubric, limits: Limits, *, file_name: str | None = None, replay: bool = True
    ) -> CheckRun:
        """Run every check of ``rubric`` on a submission's ``content``; one result per rubric check, in order.

        The checks read a private copy, so the graded bytes are the ones the caller read,
        whatever happens to the original file meanwhile. ``file_name`` is the copy's (see
        grader.engine.grading.Prepared; default: the handout's), its suffix the original's
        (``.py``, ``.ipynb``), so the copy is read as the original was (see grader.sources)
        and feedback names the file by it.
        ``replay`` lets passing checks replay recorded examples (same results, much
        sooner; see grader.engine.examples).
        """
        return self.run_many([content], rubric, limits, file_names=[file_name], replay=replay)[0]

    def run_many(
        self,
        contents: list[bytes],
        rubric: Rubric,
        limits: Limits,
        *,
        file_names: list[str | None] | None = None,
        replay: bool = True,
        claims: Path | None = None,
    ) -> list[CheckRun]:
        """:meth:`run` for several submissions in one pytest session (its start-up, about
        20 ms, is paid once), each graded exactly as alone: its checks in the same order,
        with a worker of its own. One that breaks the run breaks it for all of them.
        ``file_names`` are their copies' (as in :meth:`run`). With ``claims`` (a folder of
        grader.engine.claims), a submission another job claimed is skipped: its entry then says
        nothing, and its caller knows to ignore it."""
        if self._process is None:
            self._start()
        with tempfile.TemporaryDirectory(prefix="grader-run-") as folder:
            workdir = Path(folder)
            (workdir / "pytest.ini").write_text(PYTEST_INI)
            submissions = []
            handout = f"{Path(rubric.of.handout).stem}.py"
            for number, (content, file_name) in enumerate(zip(contents, file_names or [None] * len(contents))):
                submissions.append(workdir / f"submission-{number}" / (file_name or handout))
                submissions[-1].parent.mkdir()
                submissions[-1].write_bytes(content)
            output = workdir / "pytest-output.txt"
            arguments = pytest_arguments(submissions, rubric, limits, workdir, replay=replay, claims=claims)
            code = self._exchange({"args": arguments, "output": str(output)}, limits.submission_budget * len(contents))
            if code not in (0, 1):
                raise GradingFailed(f"the check run failed (pytest exit {code}): {_tail(output)}")
            try:
                report = json.loads((workdir / "results.json").read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise GradingFailed(f"the check run wrote no readable results: {error}") from None
        extras = report.get("submissions")
        if not isinstance(extras, list) or len(extras) != len(contents):
            extras = [{}] * len(contents)
        extras = [extra if isinstance(extra, dict) else {} for extra in extras]
        return [
            CheckRun(
                _results_in_rubric_order(report, rubric, index),
                _diagnoses(extras[index]),
                _pictures(extras[index]),
                _duration(extras[index]),
            )
            for index in range(len(contents))
        ]

    def _exchange(self, request: dict[str, Any], budget: float) -> int:
        process = self._process
        try:
            process.stdin.write((json.dumps(request) + "\n").encode())
            process.stdin.flush()
            return int(json.loads(_reply_line(process.stdout.fileno(), time.monotonic() + budget))["exit"])
        except TimeoutError:
            self.close()
            raise GradingFailed(f"grading took longer than {budget:g} s") from None
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            self.close()
            raise GradingFailed(f"the check process stopped unexpectedly: {_tail(self._home / 'stderr.txt')}") from None
        except BaseException:
            # Interrupted (a kernel's interrupt, Ctrl-C): the run goes on, and its reply would
            # answer the next request. The next run starts a new process instead.
            self.close()
            raise

    def close(self) -> None:
        """Stop the process (and any worker it started); the next run starts a new one."""
        if self._process is not None:
            kill_session(self._process)
            self._process = None

    def __enter__(self) -> CheckProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        # Asked to stop (its stdin closed), it ends its sandbox and removes its folders
        # itself; killed, it could not.
        if self._process is not None:
            try:
                self._process.stdin.close()
                self._process.wait(timeout=GRACEFUL_STOP_S)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.close()
        shutil.rmtree(self._home, ignore_errors=True)


def run_checks(
    content: bytes, rubric: Rubric, limits: Limits, *, file_name: str | None = None, replay: bool = True
) -> CheckRun:
    """:meth:`CheckProcess.run` in a check process of its own."""
    with CheckProcess() as checks:
        return checks.run(content, rubric, limits, file_name=file_name, replay=replay)


def _reply_line(fd: int, deadline: float) -> bytes:
    """The check process's one-line reply (it writes nothing else until the next request)."""
    reply = b""
    while not reply.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(fd, 4096)
        if not chunk:
            raise EOFError("the check process closed its pipe")
        reply += chunk
    return reply


def _tail(output: Path) -> str:
    try:
        lines = output.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no output"
    return " | ".join(lines[-5:])


def _tests_of(report: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The report's entries for submission ``index``."""
    tests = [test for test in report.get("tests", []) if isinstance(test, dict)]
    return [test for test in tests if (test.get("metadata") or {}).get("submission", 0) == index]


def _results_in_rubric_order(report: dict[str, Any], rubric: Rubric, index: int) -> list[CheckResult]:
    found: dict[str, CheckResult] = {}
    for test in _tests_of(report, index):
        metadata = test.get("metadata") or {}
        check_id = metadata.get("check_id")
        if check_id in rubric.check_ids:
            found[check_id] = _result(check_id, test.get("outcome"), metadata)
    return [found.get(check_id) or _not_run(check_id) for check_id in rubric.check_ids]


def _duration(extras: dict[str, Any]) -> float:
    """Seconds from the submission's first check to the end of its pictures and diagnoses."""
    duration = extras.get("duration_s")
    return float(duration) if type(duration) in (int, float) and 0 <= duration < 1e6 else 0.0


def _diagnoses(report: dict[str, Any]) -> list[dict[str, str]]:
    found = report.get("diagnoses")
    if not isinstance(found, list):
        return []
    return [
        {"id": item["id"][:100], "message": item["message"][:1000]}
        for item in found
        if isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("message"), str)
    ]


def _pictures(report: dict[str, Any]) -> dict[str, Any]:
    """``{name: {"student": rows, "reference": rows}}``, each rows a small matrix of numbers or None."""
    found = report.get("pictures")
    if not isinstance(found, dict):
        return {}
    return {
        name: {side: _matrix(picture.get(side)) for side in ("student", "reference")}
        for name, picture in list(found.items())[:4]
        if isinstance(name, str) and isinstance(picture, dict)
    }


def _matrix(rows: Any) -> list[list[float | None]] | None:
    if not isinstance(rows, list) or not rows or len(rows) > 8:
        return None
    if not all(isinstance(row, list) and 0 < len(row) <= 8 for row in rows):
        return None
    if not all(value is None or type(value) in (int, float) for row in rows for value in row):
        return None
    return rows


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
