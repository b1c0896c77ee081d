"""Reference tables written from the grader's own registries at every build, so they cannot
drift from the code: each assignment's checks (from its rubric and the checks' docstrings)
and catalogue of mistakes (from its ``Mistakes``), the exit statuses (from
``grader.errors`` and the command's own constants), the report formats, and a field table
for each JSON Schema the grader ships (``grader/report/schemas/``).

``conf.py`` calls :func:`write_all` before Sphinx reads the pages; the pages include the
files it writes (``reference/_generated/``, not kept in git) with MyST's ``include``.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path
from typing import Any

from grader import assignments, errors, report
from grader.assignments.rubric import CHECK_KEYS, RUBRIC_KEYS, load_rubric
from grader.cli import FILE_ERROR_EXIT, INTERNAL_ERROR_EXIT
from grader.report.formats import REPORT_FORMATS

SCHEMAS = Path(report.__file__).parent / "schemas"


def cell(text: object) -> str:
    """``text`` as one Markdown table cell: on one line, its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def check_docstrings(assignment: assignments.Assignment) -> dict[str, str]:
    """Each check id's docstring, read from the source as the rubric's validation reads it."""
    found = {}
    for folder in assignment.checks_folders:
        for module in sorted(folder.glob("*.py")):
            for node in ast.parse(module.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    found[f"{module.stem}.{node.name.removeprefix('test_')}"] = ast.get_docstring(node) or ""
    return found


def checks_table(name: str) -> str:
    assignment = assignments.get(name)
    rubric = load_rubric(assignment.path(assignment.rubric), assignment)
    docstrings = check_docstrings(assignment)
    rows = []
    for check in rubric.checks:
        points = f"{check.points:g}" + (" (bonus)" if check.bonus else "")
        what = docstrings.get(check.id, "")
        rows.append([f"`{check.id}`", points, check.visibility, what or check.description])
    total = f"{rubric.max_score:g} points, plus {sum(c.points for c in rubric.checks if c.bonus):g} of bonus"
    intro = f"The {len(rubric.checks)} checks of `{rubric.path.rsplit('/', 1)[-1]}`, in report order ({total}).\n\n"
    return intro + table(["check id", "points", "visibility", "what it checks"], rows)


# Parts of a mistake's message filled in from what the probes showed (grader.diagnoses).
FILLED_IN = {"{words}": "*(what it does)*", "{consequence}": "*(what the probes showed)*"}


def mistakes_table(name: str) -> str:
    assignment = assignments.get(name)
    known = assignment.mistakes()
    declared = any(mistake.caught_by for mistake in known.mistakes)
    rows = []
    for mistake in known.mistakes:
        message = mistake.message
        for placeholder, shown in FILLED_IN.items():
            message = message.replace(placeholder, shown)
        row = [f"`{mistake.id}`", mistake.function, message]
        if declared:
            row.insert(2, ", ".join(f"`{check}`" for check in mistake.caught_by))
        rows.append(row)
    intro = (
        f"The {len(known.mistakes)} mistakes the grader names for `{name}`, each with the sentence a student reads; "
        "*(what it does)* and *(what the probes showed)* stand for words the student's own answers fill in.\n\n"
    )
    header = ["id", "function", "what the student reads"]
    if declared:
        header.insert(2, "checks it costs")
    return intro + table(header, rows)


def exit_codes_table() -> str:
    rows = [[0, "Grading completed, whatever the scores (a submission's mistakes are check results, not errors)."]]
    for error in [errors.GraderError, *_subclasses(errors.GraderError)]:
        rows.append([error.exit_code, f"`{error.__name__}`: {inspect.getdoc(error)}"])
    rows.append([FILE_ERROR_EXIT, "A file the grader reads or writes that the machine refused (EX_IOERR)."])
    rows.append([INTERNAL_ERROR_EXIT, "A bug in the grader: one line says so, with no traceback (EX_SOFTWARE)."])
    return table(["status", "meaning"], sorted(rows, key=lambda row: row[0]))


def rubric_keys_table() -> str:
    rows = [[f"`{key}`", "top level", meaning] for key, meaning in RUBRIC_KEYS.items()]
    rows += [[f"`{key}`", "each `[[checks]]`", meaning] for key, meaning in CHECK_KEYS.items()]
    return table(["key", "where", "meaning"], rows)


def formats_table() -> str:
    rows = [[f"`{name}`", _plain(inspect.getdoc(render).split("\n\n")[0])] for name, render in REPORT_FORMATS.items()]
    return table(["format", "what `--format NAME[:PATH]` writes"], rows)


def _plain(text: str) -> str:
    """A docstring's paragraph with its Sphinx roles and double backticks as Markdown code."""
    return re.sub(r":\w+:`([^`]+)`", r"`\1`", text).replace("``", "`")


def schema_table(name: str) -> str:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    rows: list[list[object]] = []
    _fields(schema, "", rows, schema)
    return f"{schema.get('description', '')}\n\n" + table(["field", "type", "meaning"], rows)


def _fields(schema: dict[str, Any], prefix: str, rows: list[list[object]], root: dict[str, Any]) -> None:
    schema = _resolved(schema, root)
    required = set(schema.get("required", ()))
    for key, field in schema.get("properties", {}).items():
        field = _resolved(field, root)
        path = f"{prefix}{key}"
        rows.append([f"`{path}`" + ("" if key in required else " (optional)"), _type(field, root), field.get("description", "")])
        items = _resolved(field.get("items", {}), root) if isinstance(field.get("items"), dict) else {}
        if "properties" in field:
            _fields(field, f"{path}.", rows, root)
        elif "properties" in items:
            _fields(items, f"{path}[].", rows, root)


def _resolved(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        target: Any = root
        for part in reference[2:].split("/"):
            target = target[part]
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _type(schema: dict[str, Any], root: dict[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return " or ".join(kinds)
    if kinds:
        return kinds
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " or ".join(_type(_resolved(option, root), root) for option in schema[combinator])
    return "any"


def _subclasses(kind: type) -> list[type]:
    found = []
    for sub in kind.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def write_all(folder: Path) -> None:
    """Write every generated table into ``folder`` (made anew each build)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {f"checks-{name}.md": checks_table(name) for name in assignments.NAMES}
    files |= {f"mistakes-{name}.md": mistakes_table(name) for name in assignments.NAMES}
    files["exit-codes.md"] = exit_codes_table()
    files["formats.md"] = formats_table()
    files["rubric-keys.md"] = rubric_keys_table()
    files |= {f"schema-{path.name.split('.')[0]}.md": schema_table(path.name.split(".")[0])
              for path in sorted(SCHEMAS.glob("*.schema.json"))}
    for name, text in files.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # Sphinx rebuilds what changed
            path.write_text(text, encoding="utf-8")
