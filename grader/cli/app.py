"""The ``grader`` group and its one error boundary: the only place that exits.

Every :class:`grader.errors.GraderError` becomes a one-line message and its exit status
here; a submission's mistakes never do (they are check results, and grading them exits
0). Each command lives in the module of its readers: :mod:`.grading` (check, grade),
:mod:`.handout` (the platform bundles and export-student), :mod:`.courses`
(new-assignment, validate); each parses, makes one library call, and renders.
"""

from __future__ import annotations

from typing import Any

import click

from grader import __version__
from grader.errors import GraderError
from grader.report.safe_text import shown

INTERNAL_ERROR_EXIT = 70
FILE_ERROR_EXIT = 74  # EX_IOERR: an output or input file the machine refused


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print ``text`` to the terminal, the one way this command does: a name or a message a
    submission controls may hold escape sequences, which are shown, never sent."""
    click.echo(shown(text), err=err, nl=nl)


class GraderGroup(click.Group):
    """The one error boundary: grader errors become a message and an exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GraderError as error:
            echo(f"grader: error: {error}", err=True)
            ctx.exit(error.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except OSError as error:  # a file the grader writes or reads that the machine refuses
            # os.replace names the file it could not replace second.
            named = error.filename2 if error.filename2 is not None else error.filename
            where = f" {named}" if named is not None and not isinstance(named, int) else ""
            echo(f"grader: error: cannot use{where}: {error.strerror or error}", err=True)
            ctx.exit(FILE_ERROR_EXIT)
        except Exception as error:  # a bug in the grader: say so in one line, no traceback
            echo(f"grader: internal error: {type(error).__name__}: {error} (please report this)", err=True)
            ctx.exit(INTERNAL_ERROR_EXIT)


def warn(message: str) -> None:
    """Print a one-line warning on stderr: something the user should know, not an error."""
    echo(f"grader: warning: {message}", err=True)


@click.group(cls=GraderGroup)
@click.version_option(__version__, prog_name="grader")
def cli() -> None:
    """Grade NumPy implementations of one attention head (and its sequel, multi-head
    attention: --assignment multi_head) with property checks."""


