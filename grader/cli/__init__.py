"""The ``grader`` command line: parse, make one library call, render.

This is the only module that exits. Every :class:`grader.errors.GraderError` becomes a
one-line message and its exit status here; a submission's mistakes never do (they are
check results, and grading them exits 0).
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from grader import __version__, assignments
from grader.assignments import outside
from grader.assignments.rubric import chosen_rubric
from grader.batch import grade_folder, refuse_overlap
from grader.batch.outputs import ClassOutputs
from grader.batch.progress import BatchProgress, summary_text
from grader.batch.submissions import find_submissions
from grader.bundles import export_student, gradescope_bundle, prairielearn_bundle
from grader.checking import secret
from grader.cli.watch import Stamp, saved_again, stamp
from grader.engine.grading import grade_file
from grader.engine.runner import CheckProcess
from grader.errors import GraderError, UsageError
from grader.report import write_atomic
from grader.report.formats import REPORT_FORMATS
from grader.report.formats.gradebook import canvas_clashes
from grader.report.safe_text import shown
from grader.sandbox import ISOLATIONS, Limits, resolve_isolation
from grader.sandbox.bounds import enforced, shortfalls
from grader.similarity import DEFAULT_THRESHOLD

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


def rubric_options(command: Callable) -> Callable:
    """The assignment and its rubric, shared by every command that grades or hands out."""
    command = click.option(
        "--rubric",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Rubric TOML file (default: the assignment's bundled one, such as rubrics/attention_head.toml).",
    )(command)
    return click.option(
        "--assignment",
        metavar="NAME|FOLDER",
        default=None,
        help=f"The assignment graded: {', '.join(assignments.NAMES)}, an installed course's, or the path of a "
        "course's own assignment folder (default: the one the rubric's name is; for `check`, else the one whose "
        f"handout FILE is named after, such as multi_head.py; else {assignments.DEFAULT}).",
    )(command)


SECRET_OPTION = click.option(
    "--secret-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help=f"The course secret the examples' values are drawn from, so that no one can work them out from "
    f"the public grader (default: ${secret.ENVIRONMENT_VARIABLE}, if set; else the public examples). "
    "Gradescope's bundle carries it, readable by root alone; PrairieLearn's image never does (the question "
    f"sets ${secret.ENVIRONMENT_VARIABLE} at run time); export-student never does.",
)


def shared_options(command: Callable) -> Callable:
    """The rubric and the limits, shared by every grading command."""
    defaults = Limits()
    options = [
        rubric_options,
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
            help="Memory cap of the process running the submission, in MiB (its sandbox as a whole "
            "gets 256 more, where a cgroup can hold it).",
        ),
        click.option(
            "--max-processes",
            type=click.IntRange(min=4),
            default=defaults.max_processes,
            show_default=True,
            help="Processes and threads one sandbox may hold at once (a head never needs more than one).",
        ),
        SECRET_OPTION,
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _warn(message: str) -> None:
    echo(f"grader: warning: {message}", err=True)


def _limits(
    call_timeout: float,
    check_budget: float,
    submission_budget: float,
    memory_mb: int,
    max_processes: int,
    sandbox: str,
    secret_file: Path | None,
    *,
    self_check: bool = False,
    on_cluster: bool = False,
) -> Limits:
    if on_cluster:
        # Whether this machine has bubblewrap says nothing of the workers: auto means
        # bubblewrap there, and grader.batch.executors.cluster checks that each can start it.
        isolation = "process" if sandbox == "process" else "bubblewrap"
    else:
        isolation = resolve_isolation(sandbox, self_check=self_check, warn=_warn)
    return Limits(
        call_timeout=call_timeout,
        check_budget=check_budget,
        submission_budget=submission_budget,
        memory_mb=memory_mb,
        max_processes=max_processes,
        isolation=isolation,
        course_key=secret.course_key(secret_file),
    )


@click.group(cls=GraderGroup)
@click.version_option(__version__, prog_name="grader")
def cli() -> None:
    """Grade NumPy implementations of one attention head (and its sequel, multi-head
    attention: --assignment multi_head) with property checks."""


def _report_outputs(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[tuple[str, str]]:
    """``NAME[:PATH]`` values as (format, path) pairs; ``-`` (stdout) when no path is given."""
    outputs = []
    for value in values:
        name, _, path = value.partition(":")
        if name not in REPORT_FORMATS:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(REPORT_FORMATS)}", ctx, param)
        outputs.append((name, path or "-"))
    return outputs


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "formats",
    metavar="NAME[:PATH]",
    multiple=True,
    callback=_report_outputs,
    help=f"Write the report as NAME ({', '.join(REPORT_FORMATS)}) to PATH, or to stdout instead of "
    "the text report when no PATH is given. Repeatable.",
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
    """Grade one FILE and print what passed, what failed, and how to reproduce it.

    \b
    Formats for other tools:
      gradescope    Gradescope's results.json
      prairielearn  PrairieLearn's results.json
      junit         JUnit XML, one testcase per check
      classroom     the base64 result GitHub Classroom's reporter reads
      markdown      a table of checks, for a GitHub Actions job summary
      html          one self-contained page with pictures of the attention weights
    """
    outputs = formats + [(name, path) for name, path in (("json", json_path), ("html", html_path)) if path]
    to_stdout = [name for name, path in outputs if path == "-"]
    if len(to_stdout) > 1:
        raise UsageError(f"only one format can go to stdout, not {' and '.join(to_stdout)}")
    with CheckProcess() as checks:  # starts now: its imports overlap the sandbox probe
        # A student checking their own file: as root without bubblewrap (a fresh container)
        # it still runs, in a plain process, where `grade` refuses.
        chosen, chosen_limits = chosen_rubric(rubric, assignment, file), _limits(**limits, self_check=True)

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
    column per check). A report
    already in OUT for the same file, rubric and grader version is kept, so a batch
    that was stopped resumes where it left off.
    """
    if scheduler is not None and scheduler_file is not None:
        raise UsageError("give --scheduler or --scheduler-file, not both")
    on_cluster = scheduler is not None or scheduler_file is not None
    if on_cluster and ctx.get_parameter_source("jobs") == click.core.ParameterSource.COMMANDLINE:
        raise UsageError("--jobs is for this machine's cores; on a cluster, each `dask worker --nworkers N` sets its own")
    refuse_overlap(folder, out)
    chosen = chosen_rubric(rubric, assignment)
    outputs = ClassOutputs(
        html=html, junit=junit, canvas=canvas, canvas_assignment=canvas_assignment, similarity=similarity,
        similarity_threshold=similarity_threshold,
    )
    chosen_limits = _limits(**limits, on_cluster=on_cluster)
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
            _warn(shortfall)
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
        _warn(
            f"{written_for_another} of {len(reports)} submissions define the functions of another assignment than "
            f"{chosen.assignment} (each report says which): is --assignment right?"
        )
    if canvas:
        for user, students in sorted(canvas_clashes(reports).items()):
            _warn(f"canvas.csv: {len(students)} submissions name Canvas user {user} ({', '.join(students)}); "
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


@cli.command("gradescope-bundle")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@rubric_options
@SECRET_OPTION
def gradescope_bundle_command(out: Path, rubric: Path | None, assignment: str | None, secret_file: Path | None) -> None:
    """Write Gradescope's autograder zip to OUT (upload it as the assignment's autograder).

    Its setup.sh installs Python, bubblewrap and the grader; its run_autograder grades
    the assignment's handout file (attention.py for the first; a course's own assignment
    folder travels in the zip) into /autograder/results/results.json, each check a test
    with the rubric's points and visibility.
    """
    entries = gradescope_bundle(out, chosen_rubric(rubric, assignment), secret.read_secret(secret_file))
    echo(f"wrote {out} ({len(entries)} files): upload it as the Gradescope autograder")


@cli.command("prairielearn-bundle")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@rubric_options
@click.option(
    "--image",
    metavar="NAME",
    default=f"attention-grader:{__version__}",
    show_default=True,
    help="The Docker image name info.json gives PrairieLearn, such as 'myorg/attention-grader:1' on Docker Hub.",
)
@SECRET_OPTION
def prairielearn_bundle_command(
    out: Path, rubric: Path | None, assignment: str | None, image: str, secret_file: Path | None
) -> None:
    """Write into the new folder OUT PrairieLearn's external grader: a Dockerfile (build
    and push it as IMAGE), its entrypoint and the info.json settings of the question.

    The entrypoint grades the handout file in /grade/student (attention.py or
    attention.ipynb, for the first assignment) into /grade/results/results.json, each
    check the student may see a test.
    """
    course_secret = secret.read_secret(secret_file)  # checked here; never written into the image
    written = prairielearn_bundle(out, chosen_rubric(rubric, assignment), image)
    echo(f"wrote {len(written)} files to {out}: build its Dockerfile as {image}, push it, "
               f"and merge {out / 'info.json'} into the question's info.json")
    if course_secret is not None:
        key = secret.course_key_of(course_secret)
        echo(
            f"the image holds no course secret: set \"{secret.ENVIRONMENT_VARIABLE}\" to it in the question's "
            f"externalGradingOptions.environment (course staff can read info.json; students cannot). Its reports "
            f"will say \"examples\": \"{secret.label(key)}\"."
        )


@cli.command("export-student")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@rubric_options
@click.option(
    "--install",
    metavar="SPEC",
    required=True,
    help="How students install this grader: 'wheel' writes its wheel file into OUT and every command installs "
    "that file (no package index needed; in Colab, after an upload); or a pip requirement, such as "
    "'attention-grader @ git+https://github.com/myorg/attention-grader@v0.8.0'.",
)
@click.option(
    "--notebook", is_flag=True, help="Hand out the template as a notebook (attention.ipynb) instead of a Python file."
)
def export_student_command(out: Path, rubric: Path | None, assignment: str | None, install: str, notebook: bool) -> None:
    """Write into the folder OUT what students receive: the template (attention.py, or
    the notebook attention.ipynb, for the first assignment), its handout, the GitHub
    Classroom workflow, the rubric's visible checks and the commands to run them.

    Never the reference head, and no hidden or after-due-date check.
    """
    chosen = chosen_rubric(rubric, assignment)
    written = export_student(out, chosen, install, notebook=notebook)
    exported = chosen.of
    if exported.folder is not None and not outside.installed(exported.name):
        _warn(
            f"the students' self-check commands say --assignment {exported.name}: publish the folder as a package that "
            f"declares it under the entry point group {outside.ENTRY_POINT_GROUP} (README, Adding an assignment), "
            "and give that package to --install"
        )
    echo(f"wrote {len(written)} files to {out}: " + ", ".join(written))


@cli.command("new-assignment")
@click.argument("name")
@click.argument("out", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--reference", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
              help="The reference file: its public functions are what students write.")
def new_assignment_command(name: str, out: Path, reference: Path) -> None:
    """Write a working assignment folder DIR/NAME from a reference file: the Assignment, a
    template that raises NotImplementedError, a first property check per function, a
    rubric, an empty list of known mistakes and a handout stub. Then: grader validate DIR/NAME."""
    from grader.assignments.skeleton import write_skeleton

    written = write_skeleton(name, out, reference)
    echo(f"wrote {len(written)} files to {out / name}: {', '.join(written)}")
    echo(f"next: grader validate {out / name}")


@cli.command("validate")
@click.argument("assignment_spec", metavar="ASSIGNMENT")
@click.option("--rubric", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Rubric TOML file (default: the assignment's own).")
@click.option("--jobs", type=click.IntRange(min=2), default=2, show_default=True,
              help="The second grading's jobs (the first runs one): both must give the same grades.")
@click.option("--mutants", type=click.IntRange(min=0), default=150, show_default=True,
              help="Grade at most this many mutants of the reference (0: no mutation score; needs the authoring extra).")
@click.option("--min-mutation-score", type=click.FloatRange(0, 100), default=0.0, show_default=True,
              help="Fail below this mutation score, in percent.")
@click.option("--sandbox", type=click.Choice(["auto", *ISOLATIONS]), default="auto", show_default=True,
              help="Isolation of the graded files: bubblewrap where it works (auto), or a plain process.")
def validate_command(
    assignment_spec: str, rubric: Path | None, jobs: int, mutants: int, min_mutation_score: float, sandbox: str
) -> None:
    """Check ASSIGNMENT (a name, or a course's assignment folder) before students see it:
    the reference gets full marks, the template 0 and "not written yet", each known
    mistake's variant loses points on its checks and is named alone, grades are the same
    with one job and with several, and mutants of the reference that no check kills are
    listed. Exits 1 when any of that fails."""
    from grader import (
        validation,  # the batch machinery and cosmic-ray: only this command needs them
    )

    assignment = assignments.get(assignment_spec)
    chosen = chosen_rubric(rubric, assignment_spec)
    limits = Limits(isolation=resolve_isolation(sandbox, self_check=True, warn=_warn), course_key=None)
    with tempfile.TemporaryDirectory(prefix="grader-validate-") as workdir:
        result = validation.validate(
            assignment, chosen, limits, Path(workdir), jobs=jobs, mutants=mutants,
            min_mutation_score=min_mutation_score, progress=lambda line: echo(f"grader: {line}", err=True),
        )
    echo(validation.render(result, assignment.name))
    if not result.passed:
        raise click.exceptions.Exit(1)


def main() -> None:
    cli(prog_name="grader")
