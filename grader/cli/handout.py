"""What an instructor hands to other places: the Gradescope and PrairieLearn bundles, and
the students' handout (``export-student``)."""

from __future__ import annotations

from pathlib import Path

import click

from grader import __version__
from grader.assignments import outside
from grader.assignments.rubric import chosen_rubric
from grader.bundles import export_student, gradescope_bundle, prairielearn_bundle
from grader.checking import secret
from grader.cli.app import cli, echo, warn
from grader.cli.options import SECRET_OPTION, rubric_options


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
    "'attention-grader @ git+https://github.com/myorg/attention-grader@v0.10.0'.",
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
    from grader.sandbox import Limits, resolve_isolation
    from grader.validation import refuse_a_revealing_template  # it grades: imported only here

    chosen = chosen_rubric(rubric, assignment)
    refuse_a_revealing_template(chosen, Limits(isolation=resolve_isolation("auto", self_check=True, warn=warn)))
    written = export_student(out, chosen, install, notebook=notebook)
    exported = chosen.of
    if exported.folder is not None and not outside.installed(exported.name):
        warn(
            f"the students' self-check commands say --assignment {exported.name}: publish the folder as a package that "
            f"declares it under the entry point group {outside.ENTRY_POINT_GROUP} (the docs' page 'Publish a course package'), "
            "and give that package to --install"
        )
    echo(f"wrote {len(written)} files to {out}: " + ", ".join(written))
