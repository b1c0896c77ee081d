"""The ``grader`` command line: parse, make one library call, render.

This is the only module that exits. Every :class:`grader.errors.GraderError` becomes a
one-line message and its exit status here; a submission's mistakes never do (they are
check results, and grading them exits 0).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from grader import __version__
from grader.batch import grade_folder
from grader.errors import GraderError
from grader.grading import grade_file
from grader.pages import student_page, write_pages
from grader.progress import BatchProgress, summary_text
from grader.report import render_text, to_json, write_atomic
from grader.resources import DEFAULT_RUBRIC, project_file
from grader.rubric import Rubric, load_rubric
from grader.runner import CheckProcess
from grader.sandbox import ISOLATIONS, Limits, resolve_isolation

INTERNAL_ERROR_EXIT = 70


class GraderGroup(click.Group):
    """The one error boundary: grader errors become a message and an exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GraderError as error:
            click.echo(f"grader: error: {error}", err=True)
            ctx.exit(error.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as error:  # a bug in the grader: say so in one line, no traceback
            click.echo(f"grader: internal error: {type(error).__name__}: {error} (please report this)", err=True)
            ctx.exit(INTERNAL_ERROR_EXIT)


def shared_options(command: Callable) -> Callable:
    """The rubric and the limits, shared by every grading command."""
    defaults = Limits()
    options = [
        click.option(
            "--rubric",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="Rubric TOML file (default: the bundled rubrics/attention_head.toml).",
        ),
        click.option(
            "--call-timeout",
            type=click.FloatRange(min=0.1),
            default=defaults.call_timeout,
            show_default=True,
            help="Seconds one call to the submission may take.",
        ),
        click.option(
            "--check-budget",
            type=click.FloatRange(min=1.0),
            default=defaults.check_budget,
            show_default=True,
            help="Seconds all calls of one check may take together.",
        ),
        click.option(
            "--submission-budget",
            type=click.FloatRange(min=10.0),
            default=defaults.submission_budget,
            show_default=True,
            help="Seconds the whole grading of one submission may take.",
        ),
        click.option(
            "--sandbox",
            type=click.Choice(["auto", *ISOLATIONS]),
            default="auto",
            show_default=True,
            help="Isolation of the submission: bubblewrap where it works (auto), or a plain process (a self-check).",
        ),
        click.option(
            "--memory-mb",
            type=click.IntRange(min=256),
            default=defaults.memory_mb,
            show_default=True,
            help="Memory cap of the process running the submission, in MiB.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _rubric(path: Path | None) -> Rubric:
    return load_rubric(path if path is not None else project_file(DEFAULT_RUBRIC))


def _limits(call_timeout: float, check_budget: float, submission_budget: float, memory_mb: int, sandbox: str) -> Limits:
    return Limits(
        call_timeout=call_timeout,
        check_budget=check_budget,
        submission_budget=submission_budget,
        memory_mb=memory_mb,
        isolation=resolve_isolation(sandbox),
    )


@click.group(cls=GraderGroup)
@click.version_option(__version__, prog_name="grader")
def cli() -> None:
    """Grade NumPy implementations of one attention head with property checks."""


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--json",
    "json_path",
    metavar="PATH|-",
    default=None,
    help="Also write the JSON report to PATH ('-' writes it to stdout instead of the text report).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the report as one self-contained HTML page, with pictures of the attention weights.",
)
@shared_options
def check(file: Path, json_path: str | None, html_path: Path | None, rubric: Path | None, **limits: Any) -> None:
    """Grade one FILE and print what passed, what failed, and how to reproduce it."""
    with CheckProcess() as checks:  # starts now: its imports overlap the sandbox probe
        report = grade_file(file, _rubric(rubric), _limits(**limits), checks=checks)
    if html_path is not None:
        write_atomic(html_path, student_page(report))
    if json_path == "-":
        click.echo(to_json(report), nl=False)
        return
    if json_path is not None:
        write_atomic(Path(json_path), to_json(report))
    click.echo(render_text(report), nl=False)


@cli.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Folder for the reports."
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="number of cores",
    help="Submissions graded at the same time.",
)
@click.option(
    "--regrade", is_flag=True, help="Grade every submission again, even those whose report in OUT is current."
)
@click.option(
    "--html", "html", is_flag=True, help="Also write OUT/<id>.html for each submission and a class page, OUT/index.html."
)
@shared_options
def grade(folder: Path, out: Path, jobs: int, regrade: bool, html: bool, rubric: Path | None, **limits: Any) -> None:
    """Grade every submission in FOLDER (FOLDER/<id>.py or FOLDER/<id>/attention.py).

    Writes OUT/<id>.json for each, then OUT/summary.json and OUT/grades.csv. A report
    already in OUT for the same file, rubric and grader version is kept, so a batch
    that was stopped resumes where it left off.
    """
    progress = BatchProgress()
    try:
        reports = grade_folder(
            folder, out, _rubric(rubric), _limits(**limits), jobs=jobs, regrade=regrade, on_report=progress
        )
    finally:
        progress.finish()
    if html:
        write_pages(reports, out)
    elapsed = time.monotonic() - progress.started
    click.echo(summary_text(reports, kept=progress.kept, elapsed_s=elapsed, out=out), nl=False)


def main() -> None:
    cli(prog_name="grader")
