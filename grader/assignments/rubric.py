"""Rubric TOML -> frozen dataclasses; all rubric validation happens here.

A rubric lists checks in report order::

    name = "attention_head"
    title = "One attention head in NumPy"

    [[checks]]
    id = "mask.rows_sum_to_one"         # a check id of the assignment (its checks/ folder)
    points = 3
    description = "With a mask, rows of A still sum to 1"
    visibility = "visible"              # visible | hidden | after_due_date
    bonus = false                       # bonus points do not count toward max_score
"""

from __future__ import annotations

import ast
import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__, assignments
from grader.assignments import Assignment
from grader.errors import RubricError

VISIBILITIES = ("visible", "hidden", "after_due_date")
# The keys of a rubric's top level and of each [[checks]] entry, with what each means: the
# rubric reference in the docs is written from these.
RUBRIC_KEYS = {
    "name": "the assignment the rubric scores (without --assignment, the grader grades the assignment it names); "
    "default: the file's name",
    "title": "what pages and Canvas's column call the assignment; default: name",
}
CHECK_KEYS = {
    "id": "required: a check of the assignment, `<module>.<name>` (`test_<name>` in its `checks/<module>.py`)",
    "points": "required: a number, 0 or more",
    "description": "what reports and pages say of the check; default: empty",
    "visibility": f"{', '.join(VISIBILITIES)} (as Gradescope names them); default: visible. export-student hands "
    "out visible checks only",
    "bonus": "true: its points count in the score, not in max_score; default: false",
}


@dataclass(frozen=True)
class RubricCheck:
    id: str
    points: float
    description: str
    visibility: str = "visible"
    bonus: bool = False


@dataclass(frozen=True)
class Rubric:
    name: str
    title: str
    path: str
    sha256: str
    checks: tuple[RubricCheck, ...]
    of: Assignment = field(repr=False)  # the assignment whose checks it scores
    # Where reports say it was read from, when ``path`` is a batch's snapshot of a course's
    # folder (a temporary copy, gone once the batch ends): the course's own file.
    read_from: str | None = field(default=None, compare=False)

    @property
    def assignment(self) -> str:
        """The name reports and caches give the assignment: a course's own with its files'
        digest, so that a report graded by other checks than today's is not kept."""
        return self.of.cache_name

    @property
    def check_ids(self) -> tuple[str, ...]:
        return tuple(check.id for check in self.checks)

    @property
    def max_score(self) -> float:
        return sum(check.points for check in self.checks if not check.bonus)


def available_check_ids(assignment: Assignment | None = None) -> frozenset[str]:
    """Every check id ``assignment`` (default: the default one) defines, read from the
    source without importing it."""
    return _check_ids(assignment or assignments.get())


@functools.cache  # the check sources of a running grader do not change; a check process reads them once
def _check_ids(assignment: Assignment) -> frozenset[str]:
    ids = set()
    for module in sorted(module for folder in assignment.checks_folders for module in folder.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        ids.update(
            f"{module.stem}.{node.name.removeprefix('test_')}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        )
    return frozenset(ids)


def load_rubric(path: Path, assignment: Assignment | None = None) -> Rubric:
    """Read and validate a rubric file of ``assignment`` (default: the one the rubric's
    ``name`` is, else the default one); raise :class:`RubricError` with the reason."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RubricError(f"cannot read rubric {path}: {error.strerror or error}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RubricError(f"rubric {path} is not valid TOML: {error}") from None
    entries = data.get("checks")
    if not isinstance(entries, list) or not entries:
        raise RubricError(f"rubric {path} has no [[checks]] entries")
    named = data.get("name")
    guessed = assignment is None
    if assignment is None:
        assignment = assignments.get(named if assignments.known(named) else assignments.DEFAULT)
    elif assignments.known(named) and named != assignment.name:
        raise RubricError(
            f"rubric {path} is the rubric of the assignment {named}, not {assignment.name}: grade with --assignment {named}"
        )
    known = available_check_ids(assignment)
    try:
        checks = tuple(_parse_check(entry, number, path, known) for number, entry in enumerate(entries, start=1))
    except RubricError as error:
        if guessed and isinstance(named, str) and not assignments.known(named):
            raise RubricError(
                f"{error} of {assignment.name}; if the rubric is a course's own assignment's ({named!r}), "
                "give that assignment's folder with --assignment PATH"
            ) from None
        raise
    seen: set[str] = set()
    for check in checks:
        if check.id in seen:
            raise RubricError(f"rubric {path} lists check {check.id!r} twice")
        seen.add(check.id)
    name = data.get("name", path.stem)
    title = data.get("title", name)
    if not isinstance(name, str) or not isinstance(title, str):
        raise RubricError(f"rubric {path}: name and title must be strings")
    return Rubric(name, title, str(path), hashlib.sha256(raw).hexdigest(), checks, assignment)


def chosen_rubric(path: Path | None, assignment: str | None, file: Path | None = None) -> Rubric:
    """What every command grades with, decided once: the rubric at ``path`` (default: the
    assignment's own), carrying the assignment ``assignment`` names (default: the one the
    rubric's ``name`` is; else the one whose handout ``file`` is named after; else the default)."""
    if assignment is not None:
        chosen = assignments.get(assignment)
    elif path is not None:
        return load_rubric(path)
    else:
        chosen = (assignments.of_file(file) if file is not None else None) or assignments.get()
    return load_rubric(path if path is not None else chosen.path(chosen.rubric), chosen)


def _parse_check(entry: Any, number: int, path: Path, known: frozenset[str]) -> RubricCheck:
    where = f"rubric {path}, check #{number}"
    if not isinstance(entry, dict):
        raise RubricError(f"{where} is not a table")
    unknown_keys = set(entry) - set(CHECK_KEYS)
    if unknown_keys:
        raise RubricError(f"{where} has unknown keys: {', '.join(sorted(unknown_keys))}")
    check_id = entry.get("id")
    if not isinstance(check_id, str):
        raise RubricError(f"{where} needs an id string")
    if check_id not in known:
        raise RubricError(f"{where}: no check is called {check_id!r}")
    points = entry.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise RubricError(f"{where} ({check_id}): points must be a number >= 0")
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise RubricError(f"{where} ({check_id}): description must be a string")
    visibility = entry.get("visibility", "visible")
    if visibility not in VISIBILITIES:
        raise RubricError(f"{where} ({check_id}): visibility must be one of {', '.join(VISIBILITIES)}")
    bonus = entry.get("bonus", False)
    if not isinstance(bonus, bool):
        raise RubricError(f"{where} ({check_id}): bonus must be true or false")
    return RubricCheck(check_id, float(points), description, visibility, bonus)


def rubric_toml(rubric: Rubric, checks: list[RubricCheck], header: list[str]) -> str:
    """``rubric`` with only ``checks``, as TOML (strings as TOML basic strings), after the
    comment lines ``header``."""
    lines = [*header, "", f"name = {_toml_string(rubric.name)}", f"title = {_toml_string(rubric.title)}"]
    for check in checks:
        lines += [
            "",
            "[[checks]]",
            f"id = {_toml_string(check.id)}",
            f"points = {check.points:.17g}",  # read back as the very same number
            f"description = {_toml_string(check.description)}",
            f"visibility = {_toml_string(check.visibility)}",
            f"bonus = {'true' if check.bonus else 'false'}",
        ]
    return "\n".join(lines) + "\n"


def narrowed(rubric: Rubric, check_ids: tuple[str, ...], folder: Path) -> Rubric:
    """``rubric`` with only ``check_ids``, written to ``folder`` (a check run reads its
    rubric from a file) and read back."""
    keep = set(check_ids)
    header = [f"# Only {', '.join(check_ids)} (attention-grader {__version__})."]
    # Named by what it holds: a rubric's name may be anything, a path included.
    path = folder / f"rubric-{hashlib.sha256(' '.join((rubric.sha256, *check_ids)).encode()).hexdigest()[:16]}.toml"
    path.write_text(rubric_toml(rubric, [check for check in rubric.checks if check.id in keep], header), encoding="utf-8")
    return load_rubric(path, rubric.of)


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else _toml_escape(c) for c in escaped) + '"'


def _toml_escape(character: str) -> str:
    code = ord(character)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
