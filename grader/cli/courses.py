"""A course's own assignments: ``new-assignment`` writes one to start from, ``validate``
checks one before students see it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from grader import assignments
from grader.assignments.rubric import chosen_rubric
from grader.cli.app import cli, echo, warn
from grader.sandbox import ISOLATIONS, Limits, resolve_isolation


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
              help="Grade at most this many mutants of the reference, made with cosmic-ray from the authoring extra "
              "(0: no mutants and no mutation score, which needs no extra).")
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
    limits = Limits(isolation=resolve_isolation(sandbox, self_check=True, warn=warn), course_key=None)
    with tempfile.TemporaryDirectory(prefix="grader-validate-") as workdir:
        result = validation.validate(
            assignment, chosen, limits, Path(workdir), jobs=jobs, mutants=mutants,
            min_mutation_score=min_mutation_score, progress=lambda line: echo(f"grader: {line}", err=True),
        )
    echo(validation.render(result, assignment.name))
    if not result.passed:
        raise click.exceptions.Exit(1)
