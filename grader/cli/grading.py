"""``grader check`` (a student's own file, once or at each save) and ``grader grade`` (a folder
of submissions)."""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from grader import assignments, sources
from grader.assignments.rubric import chosen_rubric
from grader.batch import grade_folder, refuse_in_assignment, refuse_overlap
from grader.batch.outputs import ClassOutputs
from grader.batch.progress import BatchProgress, summary_text
from grader.batch.submissions import find_submissions
from grader.cli.app import cli, echo, warn
from grader.cli.options import limits_of, shared_options
from grader.cli.watch import Stamp, saved_again, stamp
from grader.engine.grading import grade_file
from grader.engine.runner import CheckProcess
from grader.errors import GraderError, UsageError
from grader.report import write_atomic
from grader.report.formats import REPORT_FORMATS
from grader.report.formats.gradebook import canvas_clashes
from grader.sandbox.bounds import enforced, shortfalls
from grader.similarity import DEFAULT_THRESHOLD


def _formats_help() -> str:
    """The list of --format's names for ``check --help``, each described by its renderer's
    own first sentence (as the reference pages describe them), so adding a format adds it here."""
    lines = ["Grade one FILE and print what passed, what failed, and how to reproduce it.", "", "\b", "Formats:"]
    for name, render in REPORT_FORMATS.items():
        first = (render.__doc__ or "").split(": ")[0].split(". ")[0]
        lines.append(f"  {name:<13} {' '.join(first.replace('``', '').split())}")
    return "\n".join(lines)


def _report_outputs(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[tuple[str, str]]:
    """``NAME[:PATH]`` values as (format, path) pairs; ``-`` (stdout) when no path is given."""
    outputs = []
    for value in values:
        name, _, path = value.partition(":")
        if name not in REPORT_FORMATS:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(REPORT_FORMATS)}", ctx, param)
        outputs.append((name, path or "-"))
    return outputs


@cli.command(help=_formats_help())
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "formats",
    metavar="NAME:PATH",
    multiple=True,
    callback=_report_outputs,
    help=f"Write the report as NAME ({', '.join(REPORT_FORMATS)}) to PATH; NAME alone writes it to stdout "
    "instead of the text report. Repeatable.",
)
@click.option("--json", "json_path", metavar="PATH|-", default=None, help="Same as --format json:PATH.")
@click.option("--html", "html_path", metavar="PATH", default=None, help="Same as --format html:PATH.")
@click.option(
    "--follow-links/--no-follow-links",
    default=True,
    show_default=True,
    help="Grade FILE where it is a symbolic link (a student's own machine), or refuse it with one "
    "sentence (the platforms' entry points, where the student chose what it points to).",
)
@click.option(
    "--watch",
    is_flag=True,
    default=False,
    help="Grade FILE again each time it is saved, in the same warm check process, until Ctrl-C.",
)
@shared_options
def check(
    file: Path,
    formats: list[tuple[str, str]],
    json_path: str | None,
    html_path: str | None,
    follow_links: bool,
    watch: bool,
    rubric: Path | None,
    assignment: str | None,
    **limits: Any,
) -> None:
    # The help text (below, with the formats' own descriptions) is the command's docstring.
    outputs = formats + [(name, path) for name, path in (("json", json_path), ("html", html_path)) if path]
    to_stdout = [name for name, path in outputs if path == "-"]
    if len(to_stdout) > 1:
        raise UsageError(f"only one format can go to stdout, not {' and '.join(to_stdout)}")
    with CheckProcess() as checks:  # starts now: its imports overlap the sandbox probe
        # A student checking their own file: as root without bubblewrap (a fresh container)
        # it still runs, in a plain process, where `grade` refuses.
        chosen, chosen_limits = chosen_rubric(rubric, assignment, file), limits_of(**limits, self_check=True)
        if rubric is None and assignment is None and assignments.of_file(file) is None:
            _refuse_a_file_of_no_known_assignment(file, chosen.of, follow_links)

        def grade_and_show() -> None:
            report = grade_file(file, chosen, chosen_limits, checks=checks, follow_links=follow_links)
            for name, path in outputs:
                if path != "-":
                    write_atomic(Path(path), REPORT_FORMATS[name](report))
            echo(REPORT_FORMATS[to_stdout[0] if to_stdout else "text"](report), nl=False)

        graded = stamp(file)  # before the first grade: a save during it is graded again
        grade_and_show()
        if watch:
            _watch(file, graded, grade_and_show)


def _refuse_a_file_of_no_known_assignment(file: Path, default: assignments.Assignment, follow_links: bool) -> None:
    """Refuse a file that is neither named as a handout nor written for ``default``; one
    that cannot be read or parsed is graded (its report says why)."""
    try:
        source = sources.parse(sources.read_bytes(file, follow_links=follow_links), suffix=file.suffix, assignment=default)
    except (UsageError, sources.Unusable):
        return
    assignments.refuse_a_file_of_no_known_assignment(file.name, source.function_names, default)


def _watch(file: Path, graded: Stamp, grade_and_show: Callable[[], None]) -> None:
    """Grade again at each save until Ctrl-C; a save that cannot be graded (the file gone,
    say) is said in one line, and watching goes on."""
    echo(f"grader: watching {file}: graded again each time it is saved (Ctrl-C stops)", err=True)
    try:
        for _ in saved_again(file, graded):
            try:
                grade_and_show()
            except GraderError as error:
                echo(f"grader: error: {error}", err=True)
    except KeyboardInterrupt:
        echo("grader: stopped watching", err=True)


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
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Grade on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786, tls://host:8786) "
    "instead of this machine's cores; needs the dask extra.",
)
@click.option(
    "--scheduler-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Grade on the Dask cluster whose scheduler wrote FILE (dask scheduler --scheduler-file, dask-jobqueue).",
)
@click.option(
    "--regrade", is_flag=True, help="Grade every submission again, even those whose report in OUT is current."
)
@click.option(
    "--html", "html", is_flag=True, help="Also write OUT/<id>.html for each submission and a class page, OUT/index.html."
)
@click.option("--junit", is_flag=True, help="Also write OUT/junit.xml: a testsuite per submission, a testcase per check.")
@click.option("--canvas", is_flag=True, help="Also write OUT/canvas.csv for Canvas's gradebook import.")
@click.option(
    "--similarity",
    is_flag=True,
    help="Also write OUT/similarity.json: pairs of submissions whose code or wrong answers look shared "
    "(a reason to look, never proof; grades do not change).",
)
@click.option(
    "--similarity-threshold",
    type=click.FloatRange(0.0, 1.0),
    default=DEFAULT_THRESHOLD,
    show_default=True,
    help="The lowest score of a pair --similarity lists.",
)
@click.option(
    "--canvas-assignment",
    metavar="NAME",
    default=None,
    help="The Canvas assignment column, e.g. 'Attention head (12345)' (default: the rubric's title).",
)
@shared_options
@click.pass_context
def grade(
    ctx: click.Context,
    folder: Path,
    out: Path,
    jobs: int,
    scheduler: str | None,
    scheduler_file: Path | None,
    regrade: bool,
    html: bool,
    junit: bool,
    canvas: bool,
    canvas_assignment: str | None,
    similarity: bool,
    similarity_threshold: float,
    rubric: Path | None,
    assignment: str | None,
    **limits: Any,
) -> None:
    """Grade every submission in FOLDER (FOLDER/<id>.py, or FOLDER/<id>/attention.py as
    the assignment's handout names it).

    Writes OUT/<id>.json for each, then OUT/summary.json and OUT/grades.csv (one
    column per check). A report already in OUT that this grader signed there, for the
    same file content, rubric, grader version, sandbox and course secret, is kept, so a
    batch that was stopped resumes where it left off (--regrade grades everything again).
    Class outputs an earlier batch wrote that this one is not asked for are removed.
    """
    if scheduler is not None and scheduler_file is not None:
        raise UsageError("give --scheduler or --scheduler-file, not both")
    on_cluster = scheduler is not None or scheduler_file is not None
    if on_cluster and ctx.get_parameter_source("jobs") == click.core.ParameterSource.COMMANDLINE:
        raise UsageError("--jobs is for this machine's cores; on a cluster, each `dask worker --nworkers N` sets its own")
    refuse_overlap(folder, out)
    chosen = chosen_rubric(rubric, assignment)
    refuse_in_assignment(chosen.of, submissions=folder, reports=out)
    outputs = ClassOutputs(
        html=html, junit=junit, canvas=canvas, canvas_assignment=canvas_assignment, similarity=similarity,
        similarity_threshold=similarity_threshold,
    )
    chosen_limits = limits_of(**limits, on_cluster=on_cluster)
    with contextlib.ExitStack() as stack:
        if on_cluster:
            from grader.batch.executors import (
                cluster,  # Dask is imported only for a cluster
            )

            client, sandbox_bounds = cluster.connect(cluster.Cluster(scheduler, scheduler_file), chosen_limits)
            stack.callback(client.close)
            executor = functools.partial(cluster.reports, client=client)
        else:
            executor, sandbox_bounds = None, [enforced(chosen_limits)]
        for shortfall in sorted({shortfalls(found) for found in sandbox_bounds if found} - {None}):
            warn(shortfall)
        progress = BatchProgress()
        try:
            reports = grade_folder(
                folder, out, chosen, chosen_limits, jobs=jobs, executor=executor, regrade=regrade, outputs=outputs,
                on_report=progress, on_distrusted=progress.not_trusted, on_removed=progress.removed_outputs,
            )
        finally:
            progress.finish()
    written_for_another = sum(
        1 for report in reports
        if any(note.startswith(assignments.WRITTEN_FOR_ANOTHER) for note in (report.source or {}).get("notes", []))
    )
    if written_for_another:
        warn(
            f"{written_for_another} of {len(reports)} submissions define the functions of another assignment than "
            f"{chosen.assignment} (each report says which): is --assignment right?"
        )
    if canvas:
        for user, students in sorted(canvas_clashes(reports).items()):
            warn(f"canvas.csv: {len(students)} submissions name Canvas user {user} ({', '.join(students)}); "
                  "their scores are left empty: import the one that counts by hand")
    elapsed = time.monotonic() - progress.started
    named_otherwise = sorted(file.student for file in find_submissions(folder, chosen.of.handout) if file.note)
    echo(
        summary_text(
            reports, kept=progress.kept, elapsed_s=elapsed, out=out, distrusted=progress.distrusted,
            named_otherwise=named_otherwise, removed=progress.removed,
        ),
        nl=False,
    )
