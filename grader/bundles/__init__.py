"""What the grader hands to other places: Gradescope's autograder zip, PrairieLearn's
external grader image, and the bundle students receive.

All are built from the files of this installation (the package, the reference head,
the rubric), so what they grade with is exactly what the instructor tested locally.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from grader import __version__, assignments
from grader.assignments import Assignment, outside
from grader.assignments.rubric import Rubric, rubric_toml
from grader.bundles.notebook import handout_notebook
from grader.bundles.wheel import package_files, wheel_entries, wheel_name, with_record
from grader.errors import UsageError
from grader.report import write_atomic
from grader.resources import PACKAGE, project_file

TEMPLATES = Path(__file__).resolve().parent / "templates"
GRADESCOPE_TEMPLATES = TEMPLATES / "gradescope"
GRADESCOPE_SCRIPTS = ("run_autograder", "setup.sh")
PRAIRIELEARN_TEMPLATES = TEMPLATES / "prairielearn"
# Where the Dockerfile puts the grader in PrairieLearn's image; info.json names the entrypoint there.
PRAIRIELEARN_HOME = "/attention-grader"
# Seconds PrairieLearn lets one grading run (at most 600). Measured in a fake /grade tree
# on 2 cores with --sandbox process: the reference 1.5 s, a buggy head 4.6 s, one whose
# four functions never return 134 s (each check waits out one 5 s call timeout).
PRAIRIELEARN_TIMEOUT = 180
# The grader's own budget for one submission there: what is left of the timeout once the
# container has started and the grader has read the file.
PRAIRIELEARN_SUBMISSION_BUDGET = PRAIRIELEARN_TIMEOUT - 30
EXECUTABLES = frozenset({*GRADESCOPE_SCRIPTS, "entrypoint"})
# The course secret (grader.checking.secret), readable by root alone where the bundle grades: a
# submission graded in a plain process runs as uid 65534 there.
SECRET_FILE = "secret.txt"
PRIVATE = frozenset({SECRET_FILE})
CLASSROOM_WORKFLOW = ".github/workflows/classroom.yml"
# export-student's --install that hands out this grader's own wheel file.
WHEEL = "wheel"
# What the grader imports at run time, pinned to the versions installed here.
RUNTIME_REQUIREMENTS = ("numpy", "pytest", "pytest-json-report", "hypothesis", "click", "nbformat")
# Where a bundle carries a course's own assignment folder (grader.assignments.outside).
COURSE_FOLDER = "assignment"
# Zip entries get one fixed time, so the same grader and rubric give the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
# A Docker image reference: [registry/]name[/name...][:tag] (lower-case names, as Docker requires).
_COMPONENT = r"[a-z0-9]+(?:[._-][a-z0-9]+)*"
IMAGE_NAME = re.compile(rf"{_COMPONENT}(?::[0-9]+)?(?:/{_COMPONENT})*(?::[\w][\w.-]{{0,127}})?")


def gradescope_bundle(out: Path, rubric: Rubric, secret: bytes | None = None) -> list[str]:
    """Write Gradescope's autograder zip to ``out``; return the names of its entries.

    At its root: ``setup.sh`` and ``run_autograder`` (see grader/bundles/templates/gradescope),
    and the grader's files (see :func:`_grader_files`), with the course ``secret`` if any.
    """
    assignment = rubric.of
    entries = {name: _filled_in((GRADESCOPE_TEMPLATES / name).read_bytes(), assignment) for name in GRADESCOPE_SCRIPTS}
    entries |= _grader_files(rubric, secret) | _course_files(assignment)
    write_zip(out, entries)
    return list(entries)


def prairielearn_bundle(out: Path, rubric: Rubric, image: str) -> list[str]:
    """Write into the new folder ``out`` what a PrairieLearn course needs; return its files.

    ``Dockerfile`` builds the external grader image (tag it ``image``), ``entrypoint``
    grades a submission in it (see grader/bundles/templates/prairielearn), ``info.json`` holds
    the question settings that use them, and the grader's files are the image's build
    context (see :func:`_grader_files`). The image never holds a course secret, nor an
    example drawn from one: images are pushed to registries, often public ones. A course
    gives its secret at run time, as ``GRADER_SECRET`` in the question's
    ``externalGradingOptions.environment`` (see the docs' page for PrairieLearn).
    """
    if IMAGE_NAME.fullmatch(image) is None:
        raise UsageError(
            f"--image {image!r} is not a Docker image name: lower-case letters, digits and . _ - / separators, "
            f"then an optional :tag, such as 'myorg/attention-grader:{__version__}'"
        )
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} already exists and is not an empty folder: name a new one")
    assignment = rubric.of
    python = f"{sys.version_info.major}.{sys.version_info.minor}"  # the Python the pins were resolved for
    dockerfile = (PRAIRIELEARN_TEMPLATES / "Dockerfile").read_text(encoding="utf-8")
    entries = {
        "Dockerfile": _filled_in(dockerfile.replace("@PYTHON@", python).replace("@HOME@", PRAIRIELEARN_HOME).encode(), assignment),
        "entrypoint": _filled_in(
            (PRAIRIELEARN_TEMPLATES / "entrypoint").read_bytes().replace(
                b"@SUBMISSION_BUDGET@", str(PRAIRIELEARN_SUBMISSION_BUDGET).encode()
            ),
            assignment,
        ),
        "info.json": (json.dumps(prairielearn_info(image), indent=2) + "\n").encode(),
    }
    entries |= _grader_files(rubric, None) | _course_files(assignment)
    _write_folder(out, entries)
    return list(entries)


def prairielearn_info(image: str) -> dict[str, object]:
    """The settings of a question's ``info.json`` that grade it with the bundle's image."""
    return {
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": f"{PRAIRIELEARN_HOME}/entrypoint",
            "timeout": PRAIRIELEARN_TIMEOUT,
        },
    }


def _grader_files(rubric: Rubric, secret: bytes | None) -> dict[str, bytes]:
    """What every platform's bundle grades with: ``requirements.txt`` (the runtime
    dependencies pinned to the versions installed here), ``rubric.toml``, the course
    secret as ``secret.txt`` where there is one, and the ``grader`` package with the
    reference head and the default rubric bundled inside."""
    entries = {
        "requirements.txt": "".join(
            f"{name}=={importlib.metadata.version(name)}\n" for name in RUNTIME_REQUIREMENTS
        ).encode(),
        "rubric.toml": Path(rubric.path).read_bytes(),
    }
    entries |= package_files()
    for name in assignments.NAMES:
        for data_file in (assignments.get(name).reference, assignments.get(name).rubric):
            entries[f"grader/_bundled/{data_file}"] = project_file(data_file).read_bytes()
    if secret is not None:
        entries[SECRET_FILE] = secret + b"\n"
    return entries


def _filled_in(script: bytes, assignment: Assignment) -> bytes:
    """A platform's script or Dockerfile with the assignment's handout (the file it grades,
    ``@HANDOUT@`` its name without the suffix), the bundle's path of its reference head
    (``@REFERENCE@``), and for a course's own assignment the option that names the
    folder the bundle carries (``@ASSIGNMENT@``) and the Dockerfile line that copies it."""
    handout = Path(assignment.handout).stem.encode()
    course = _course_folder(assignment)
    option = f" --assignment {course}" if course else ""
    copy = f"COPY {COURSE_FOLDER} ./{COURSE_FOLDER}\nRUN chmod -R go-rwx {COURSE_FOLDER}\n" if course else ""
    return (
        script.replace(b"@HANDOUT@", handout)
        .replace(b"@REFERENCE@", _in_bundle(assignment, assignment.reference).encode())
        .replace(b" @ASSIGNMENT@", option.encode())
        .replace(b"@COPY_ASSIGNMENT@\n", copy.encode())
    )


def _course_folder(assignment: Assignment) -> str | None:
    """Where a bundle carries a course's own assignment folder (None: a shipped one)."""
    return f"{COURSE_FOLDER}/{assignment.folder.name}" if assignment.folder is not None else None


def _course_files(assignment: Assignment) -> dict[str, bytes]:
    """A course's own assignment folder, as the bundle carries it: what the assignment
    declares or imports (:func:`outside.declared_files`); an extension's base comes with
    the grader's package."""
    course = _course_folder(assignment)
    if course is None:
        return {}
    return {f"{course}/{relative}": content for relative, content in outside.declared_files(assignment).items()}


def _in_bundle(assignment: Assignment, relative: str) -> str:
    """The path in a bundle of an assignment's data file: in the course's folder, or among
    the grader's bundled files."""
    path = assignment.path(relative).resolve()
    if assignment.folder is not None and path.is_relative_to(assignment.folder):
        return f"{_course_folder(assignment)}/{path.relative_to(assignment.folder).as_posix()}"
    for root in (PACKAGE / "_bundled", PACKAGE.parent):
        if path.is_relative_to(root):
            return f"grader/_bundled/{path.relative_to(root).as_posix()}"
    raise UsageError(f"the assignment's file {path} is neither in its folder nor in the grader")


def write_zip(out: Path, entries: dict[str, bytes]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, content in entries.items():
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.external_attr = _mode(name) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, content)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode(name: str) -> int:
    # A course's own folder holds its reference, which its students must not read: a
    # submission graded in a plain process runs as uid 65534.
    private = name in PRIVATE or name.startswith(f"{COURSE_FOLDER}/")
    return 0o755 if name in EXECUTABLES else 0o600 if private else 0o644


def _write_folder(out: Path, entries: dict[str, bytes]) -> None:
    """Write ``entries`` as the new folder ``out``, all at once: a folder filled beside it
    takes its place, so ``out`` is never half a bundle."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        for name, content in entries.items():
            path = temporary / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            path.chmod(_mode(name))
        temporary.chmod(0o755)
        if out.exists():
            out.rmdir()  # empty, as prairielearn_bundle checked
        os.replace(temporary, out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def export_student(out: Path, rubric: Rubric, install: str, *, notebook: bool = False) -> list[str]:
    """Write what students receive into the folder ``out``; return the files written.

    The rubric's assignment's template (for the first, ``attention.py``, or with
    ``notebook`` the same as the notebook ``attention.ipynb``; its README and the GitHub
    Classroom workflow), ``rubric.toml`` with only the checks students may see, and the
    commands that run those checks. Never the reference head, and no check that is
    hidden or shown only after the due date.

    ``install`` is the pip requirement that installs the grader for students; ``"wheel"``
    (:data:`WHEEL`) writes this grader's wheel into ``out`` (:mod:`grader.bundles.wheel`)
    and has every command install that file.
    """
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file, not a folder")
    wheel_files = with_record(wheel_entries()) if install == WHEEL else None  # refused before anything is written
    if install == WHEEL:
        install = f"./{wheel_name()}"
    assignment = rubric.of
    stem = Path(assignment.handout).stem
    handout = f"{stem}.ipynb" if notebook else assignment.handout
    written = []
    for relative, source in assignment.template.items():
        path = assignment.path(source)
        target = out / (handout if relative == assignment.handout else relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        if notebook and relative == assignment.handout:
            write_atomic(target, handout_notebook(path.read_text(encoding="utf-8"), install, assignment))
        else:
            target.write_text(_for_handout(path.read_text(encoding="utf-8"), stem), encoding="utf-8")
        written.append(target.relative_to(out).as_posix())
    write_atomic(out / "rubric.toml", public_rubric_toml(rubric))
    for written_anew in (out / handout, out / "rubric.toml"):
        written_anew.chmod(0o644)  # as the copied files are: write_atomic's are the writer's alone
    workflow = out / CLASSROOM_WORKFLOW
    if CLASSROOM_WORKFLOW not in assignment.template:  # a course's own assignment: the shipped workflow
        shipped = assignments.get(assignments.DEFAULT)
        workflow.parent.mkdir(parents=True, exist_ok=True)
        workflow.write_text(
            _for_handout(shipped.path(shipped.template[CLASSROOM_WORKFLOW]).read_text(encoding="utf-8"), stem), encoding="utf-8"
        )
        written.append(CLASSROOM_WORKFLOW)
    text = _for_assignment(_with_install(workflow.read_text(encoding="utf-8"), install), assignment)
    workflow.write_text(text, encoding="utf-8")
    readme = out / "README.md"
    text = _with_option(readme.read_text(encoding="utf-8") if readme.exists() else "", assignment)
    text += _self_check_section(install, assignment.handout, _assignment_option(assignment))
    readme.write_text(text.replace(assignment.handout, handout), encoding="utf-8")
    written.append("README.md")
    if wheel_files is not None:
        write_zip(out / wheel_name(), wheel_files)
        (out / wheel_name()).chmod(0o644)
        written.append(wheel_name())
    return sorted({*written, "rubric.toml"})


def _assignment_option(assignment: Assignment) -> str:
    """What a student's ``grader check`` adds to find a course's own assignment: its name,
    which the course's package (``--install``) declares under the entry point group
    ``grader.assignments``. The folder itself is never exported: it holds the reference."""
    return "" if assignment.folder is None else f" --assignment {assignment.name}"


def _with_option(readme: str, assignment: Assignment) -> str:
    """A handout's README whose commands name a course's own assignment: a shipped handout
    that an extension hands out says ``grader check attention.py``, which would grade the
    shipped assignment instead."""
    option = _assignment_option(assignment)
    if not option:
        return readme
    handout = re.escape(assignment.handout)
    readme = re.sub(rf"(grader check {handout})(?! --assignment)", rf"\g<1>{option}", readme)
    pytest_option = option.replace(" --assignment ", " --attention-assignment ")
    return re.sub(rf"(pytest --attention-submission {handout})(?! --attention-assignment)", rf"\g<1>{pytest_option}", readme)


def _for_assignment(workflow: str, assignment: Assignment) -> str:
    check = 'grader check "$submission" --no-follow-links'
    if check not in workflow:
        raise UsageError(f"the student template's {CLASSROOM_WORKFLOW} no longer runs {check}")
    return workflow.replace(check, f'grader check "$submission"{_assignment_option(assignment)} --no-follow-links')


def _for_handout(text: str, stem: str) -> str:
    """A shared template file (the Classroom workflow) naming the assignment's handout: the
    files say ``attention.py`` and ``attention.ipynb``, the first assignment's."""
    shared = Path(assignments.get(assignments.DEFAULT).handout).stem
    return text if stem == shared else text.replace(f"{shared}.py", f"{stem}.py").replace(f"{shared}.ipynb", f"{stem}.ipynb")


def _with_install(workflow: str, install: str) -> str:
    """The Classroom workflow installing ``install`` unless the variable GRADER_PACKAGE says otherwise."""
    quoted = install.replace("'", "''")  # a string in a GitHub Actions expression
    if "\n" in install or "${{" in install:
        raise UsageError(f"--install {install!r} is not a pip requirement")
    line = "GRADER_PACKAGE: ${{ vars.GRADER_PACKAGE }}"
    if line not in workflow:
        raise UsageError(f"the student template's {CLASSROOM_WORKFLOW} no longer sets GRADER_PACKAGE")
    return workflow.replace(line, f"GRADER_PACKAGE: ${{{{ vars.GRADER_PACKAGE || '{quoted}' }}}}")


def public_rubric_toml(rubric: Rubric) -> str:
    """``rubric`` as TOML with only its visible checks."""
    header = [
        "# The checks of this assignment that you can run yourself, and their points.",
        f"# Exported by attention-grader {__version__}.",
    ]
    return rubric_toml(rubric, [check for check in rubric.checks if check.visibility == "visible"], header)


def _self_check_section(install: str, handout: str, option: str) -> str:
    where = " (the wheel file in this folder, so run it here)" if install.endswith(".whl") else ""
    return f"""
## Run this assignment's checks

Install the grader once (Python 3.11 or newer){where}:

```
python -m pip install "{install}"
```

Then, in this folder:

```
grader check {handout}{option} --rubric rubric.toml
```

or, if you prefer pytest's own output:

```
pytest --attention-submission {handout}{option.replace(" --assignment ", " --attention-assignment ")} --attention-rubric rubric.toml
```

`rubric.toml` lists the checks you can run here and their points. The course may grade
more checks than these, and may draw other inputs for its grade of record than your
self-check does, so your grade can differ from what the self-check says.
"""
