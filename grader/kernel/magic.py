"""``%grade [FUNCTION] [--json PATH]``: grade the kernel's code and show the report inline."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError as MagicUsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from grader.errors import GraderError
from grader.kernel import history
from grader.kernel.session import Session
from grader.report import write_atomic
from grader.report.formats import REPORT_FORMATS
from grader.report.pages import notebook_fragment


@magics_class
class GradeMagics(Magics):
    """The ``%grade`` magic, with one grading session per kernel."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.session = Session(warn=lambda message: print(f"grader: warning: {message}", file=sys.stderr))

    @magic_arguments()
    @argument("function", nargs="?", default=None, help="grade only the checks of this function (default: all)")
    @argument("--json", metavar="PATH", default=None, help="also write the JSON report to PATH")
    @argument("--rubric", metavar="PATH", default=None, help="rubric TOML file (default: the assignment's own)")
    @argument("--assignment", metavar="NAME|FOLDER", default=None, help="the assignment the code is written for (a name, or a course's assignment folder)")
    @line_magic
    def grade(self, line: str) -> None:
        """Grade the functions as this kernel has them, in the grader's sandbox, and show the report."""
        options = parse_argstring(self.grade, line)
        try:
            report = self.session.grade(
                history.ran(self.shell),
                function=options.function,
                rubric_path=Path(options.rubric) if options.rubric else None,
                assignment=options.assignment,
            )
        except GraderError as error:  # the error boundary of this route, as the CLI's for its own
            raise MagicUsageError(str(error)) from None
        display({"text/html": notebook_fragment(report), "text/plain": REPORT_FORMATS["text"](report)}, raw=True)
        if options.json:
            try:
                write_atomic(Path(options.json), REPORT_FORMATS["json"](report))
            except OSError as error:  # the report is shown above; only its copy is missing
                raise MagicUsageError(f"cannot write {options.json}: {error.strerror or error}") from None


def load(shell: Any) -> None:
    """Register ``%grade`` with ``shell`` (``%load_ext grader``)."""
    shell.register_magics(GradeMagics)


def unload(shell: Any) -> None:
    """End the session's check process (``%unload_ext grader``, ``%reload_ext grader``)."""
    magics = shell.magics_manager.registry.get(GradeMagics.__name__)
    if magics is not None:
        magics.session.close()
