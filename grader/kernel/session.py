"""A kernel's grading session: the check process and its sandbox, kept warm between calls."""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from grader.assignments.rubric import Rubric, chosen_rubric, narrowed
from grader.checking import secret
from grader.engine.grading import grade_prepared, identity, prepare_content
from grader.engine.runner import CheckProcess
from grader.errors import UsageError
from grader.kernel import history
from grader.report import Report
from grader.sandbox import Limits, resolve_isolation
from grader.sources import KERNEL_HISTORY_SUFFIX

STUDENT = "notebook"
SUBMISSION = "the code this kernel has run"


class Session:
    """Grades what a kernel has run, again and again, in one check process: started by the
    first call, kept (with its sandbox's zygote) for the next, ended with the kernel."""

    def __init__(self, warn: Callable[[str], object]) -> None:
        self._warn = warn
        self._stack = contextlib.ExitStack()  # the check process, once started
        self._checks: CheckProcess | None = None
        self._folder = Path(tempfile.mkdtemp(prefix="grader-kernel-"))
        self._isolation: str | None = None
        atexit.register(self.close)

    def grade(self, cells: list[str], *, function: str | None, rubric_path: Path | None, assignment: str | None) -> Report:
        """The report for ``cells`` (the kernel's inputs, In [1] first): every check of the
        rubric, or only those of ``function``."""
        if not any(cell.strip() for cell in history.without_grader_lines(cells)):
            # Nothing to grade: say so, rather than grade an empty notebook to 0.
            raise UsageError(
                "%grade grades the cells this kernel has run, and it has run none yet besides the grader's own "
                "(a script run with `ipython file.ipy` or %run is not kept in the kernel's history): run the "
                "cells that define your functions, then %grade"
            )
        rubric = self._rubric(rubric_path, assignment, function)
        limits = self._limits()
        prepared = prepare_content(
            history.notebook(cells), KERNEL_HISTORY_SUFFIX, identity(STUDENT, SUBMISSION, limits), rubric, limits
        )
        if self._checks is None:
            self._checks = self._stack.enter_context(CheckProcess())
        return grade_prepared(prepared, rubric, limits, self._checks)

    def _limits(self) -> Limits:
        if self._isolation is None:  # once per kernel: bubblewrap's probe, and its warning
            self._isolation = resolve_isolation("auto", self_check=True, warn=self._warn)
        return Limits(isolation=self._isolation, course_key=secret.course_key(None))

    def _rubric(self, path: Path | None, assignment: str | None, function: str | None) -> Rubric:
        rubric = chosen_rubric(path, assignment)
        if function is None:
            return rubric
        of_rubric = rubric.of
        wanted = of_rubric.checks_of(function, rubric.check_ids)
        if not wanted:
            names = ", ".join(of_rubric.function_names)
            raise UsageError(f"%grade {function}: no check of this rubric tests {function!r}; grade one of {names}, or all")
        self._folder.mkdir(exist_ok=True)  # gone if the extension was unloaded since
        return narrowed(rubric, wanted, self._folder)

    def close(self) -> None:
        """End the check process (it stops its sandbox and removes its folders) and this session's folder."""
        self._checks = None
        with contextlib.suppress(Exception):  # the kernel is ending: nothing here may stop it
            self._stack.close()
        shutil.rmtree(self._folder, ignore_errors=True)
