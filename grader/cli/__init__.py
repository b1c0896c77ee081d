"""The ``grader`` command line: parse, make one library call, render.

This package is the only place that exits. Every :class:`grader.errors.GraderError`
becomes a one-line message and its exit status in :class:`grader.cli.app.GraderGroup`; a
submission's mistakes never do (they are check results, and grading them exits 0).
"""

from __future__ import annotations

from grader.cli import courses, grading, handout  # noqa: F401  each registers its commands on cli
from grader.cli.app import FILE_ERROR_EXIT, INTERNAL_ERROR_EXIT, cli

__all__ = ["FILE_ERROR_EXIT", "INTERNAL_ERROR_EXIT", "cli", "main"]


def main() -> None:
    cli(prog_name="grader")
