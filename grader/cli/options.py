"""The options the commands share: the assignment and its rubric, the course secret, and the
limits and sandbox of grading."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from grader import assignments
from grader.checking import secret
from grader.cli.app import warn
from grader.sandbox import ISOLATIONS, Limits, resolve_isolation


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



def limits_of(
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
        isolation = resolve_isolation(sandbox, self_check=self_check, warn=warn)
    return Limits(
        call_timeout=call_timeout,
        check_budget=check_budget,
        submission_budget=submission_budget,
        memory_mb=memory_mb,
        max_processes=max_processes,
        isolation=isolation,
        course_key=secret.course_key(secret_file),
    )
