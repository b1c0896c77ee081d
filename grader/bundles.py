"""What the grader hands to other places: Gradescope's autograder zip, and the bundle
students receive.

Both are built from the files of this installation (the package, the reference head,
the rubric), so what they grade with is exactly what the instructor tested locally.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from grader import __version__
from grader.errors import UsageError
from grader.report import write_atomic
from grader.resources import DEFAULT_RUBRIC, PACKAGE, REFERENCE_HEAD, STUDENT_TEMPLATE, project_file
from grader.rubric import Rubric

GRADESCOPE_TEMPLATES = PACKAGE / "templates" / "gradescope"
EXECUTABLES = frozenset({"setup.sh", "run_autograder"})
CLASSROOM_WORKFLOW = ".github/workflows/classroom.yml"
# What the grader imports at run time, pinned to the versions installed here.
RUNTIME_REQUIREMENTS = ("numpy", "pytest", "pytest-json-report", "hypothesis", "click")
# Zip entries get one fixed time, so the same grader and rubric give the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def gradescope_bundle(out: Path, rubric: Rubric) -> list[str]:
    """Write Gradescope's autograder zip to ``out``; return the names of its entries.

    At its root: ``setup.sh`` and ``run_autograder`` (see grader/templates/gradescope),
    ``requirements.txt``, ``rubric.toml`` and the ``grader`` package with the reference
    head and the default rubric bundled inside it.
    """
    entries = {name: (GRADESCOPE_TEMPLATES / name).read_bytes() for name in sorted(EXECUTABLES)}
    entries["requirements.txt"] = "".join(
        f"{name}=={importlib.metadata.version(name)}\n" for name in RUNTIME_REQUIREMENTS
    ).encode()
    entries["rubric.toml"] = Path(rubric.path).read_bytes()
    for path in sorted(PACKAGE.rglob("*")):
        relative = path.relative_to(PACKAGE)
        if path.is_file() and "__pycache__" not in relative.parts and relative.parts[0] != "_bundled":
            entries[f"grader/{relative.as_posix()}"] = path.read_bytes()
    for data_file in (REFERENCE_HEAD, DEFAULT_RUBRIC):
        entries[f"grader/_bundled/{data_file}"] = project_file(data_file).read_bytes()
    _write_zip(out, entries)
    return list(entries)


def _write_zip(out: Path, entries: dict[str, bytes]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, content in entries.items():
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.external_attr = (0o755 if name in EXECUTABLES else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, content)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def export_student(out: Path, rubric: Rubric, install: str) -> list[str]:
    """Write what students receive into the folder ``out``; return the files written.

    The student template (``attention.py``, its README and the GitHub Classroom
    workflow), ``rubric.toml`` with only the checks students may see, and the commands
    that run those checks. Never the reference head, and no check that is hidden or
    shown only after the due date.
    """
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file, not a folder")
    template = project_file(STUDENT_TEMPLATE)
    written = []
    for path in sorted(template.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            target = out / path.relative_to(template)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(target.relative_to(out).as_posix())
    write_atomic(out / "rubric.toml", public_rubric_toml(rubric))
    workflow = out / CLASSROOM_WORKFLOW
    workflow.write_text(_with_install(workflow.read_text(encoding="utf-8"), install), encoding="utf-8")
    readme = out / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + _self_check_section(install), encoding="utf-8")
    return sorted({*written, "rubric.toml"})


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
    """``rubric`` as TOML with only its visible checks (strings written as TOML basic strings)."""
    lines = [
        "# The checks of this assignment that you can run yourself, and their points.",
        f"# Exported by attention-grader {__version__}.",
        "",
        f"name = {_toml_string(rubric.name)}",
        f"title = {_toml_string(rubric.title)}",
    ]
    for check in rubric.checks:
        if check.visibility != "visible":
            continue
        lines += [
            "",
            "[[checks]]",
            f"id = {_toml_string(check.id)}",
            f"points = {check.points:g}",
            f"description = {_toml_string(check.description)}",
            'visibility = "visible"',
            f"bonus = {'true' if check.bonus else 'false'}",
        ]
    return "\n".join(lines) + "\n"


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped) + '"'


def _self_check_section(install: str) -> str:
    return f"""
## Run this assignment's checks

Install the grader once (Python 3.11 or newer):

```
python -m pip install "{install}"
```

Then, in this folder:

```
grader check attention.py --rubric rubric.toml
```

or, if you prefer pytest's own output:

```
pytest --attention-submission attention.py --attention-rubric rubric.toml
```

`rubric.toml` lists the checks you can run here and their points. The course may grade
more checks than these.
"""
