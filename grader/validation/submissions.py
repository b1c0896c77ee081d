"""The submissions ``grader validate`` grades: the reference, the template, a file per
variant of each known mistake (the reference with that one function replaced), and the
files of the assignment's ``variants`` folder (whole files a student could hand in, each
declaring the mistakes it must be told and the checks it must fail).

A variant is written as a file from its own source: a top-level ``def`` (a lambda or a
function built by another cannot be), renamed to the function it stands in for and
appended to the reference, so the other functions stay the reference's and a function
that calls it calls the variant, as a student's file would.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from grader.assignments import Assignment
from grader.errors import UsageError


@dataclass(frozen=True)
class Planted:
    """A file to grade and what it must get: ``kind`` is reference, template, mistake (a
    variant function written into the reference) or variant (a file of the assignment's
    ``variants`` folder); a mistake's id (a variant file's ids, in ``mistakes``) and the
    checks meant to catch it (a variant file's may be globs)."""

    student: str
    source: str
    kind: str
    mistake: str = ""
    function: str = ""
    caught_by: tuple[str, ...] = ()
    mistakes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unwritable:
    """A mistake whose variant cannot be graded as a file, and why."""

    mistake: str
    why: str


def planted(assignment: Assignment) -> tuple[list[Planted], list[Unwritable]]:
    """Every file validation grades, and the mistakes it cannot write as a file (those a
    variant file makes are written)."""
    reference = assignment.path(assignment.reference).read_text(encoding="utf-8")
    template = assignment.path(assignment.template[assignment.handout]).read_text(encoding="utf-8")
    variant_files = variants(assignment)
    files = [Planted("reference", reference, "reference"), Planted("template", template, "template"), *variant_files]
    made = {mistake for file in variant_files for mistake in file.mistakes}
    unwritable = []
    defined = _top_level_names(reference) | set(dir(builtins))
    governed = assignment.convention.governs if assignment.convention is not None else frozenset()
    for mistake in assignment.mistakes().mistakes:
        if mistake.function in governed:
            unwritable.append(Unwritable(mistake.id, f"{mistake.function} follows the course's convention, where no mistake is named"))
            continue
        for number, variant in enumerate(mistake.variants, start=1):
            written = variant_source(variant, mistake.function, defined)
            if isinstance(written, str):
                student = f"mistake-{_safe(mistake.id)}" + (f"-{number}" if len(mistake.variants) > 1 else "")
                files.append(
                    Planted(student, f"{reference}\n\n{written}\n", "mistake", mistake.id, mistake.function, mistake.caught_by)
                )
            elif mistake.id not in made:
                unwritable.append(Unwritable(mistake.id, written.why))
        if not mistake.variants and mistake.id not in made:
            unwritable.append(Unwritable(mistake.id, "it has no variant (it is named by the inference or a test of the answers)"))
    return files, unwritable


HEADER = re.compile(r"^# (diagnosis|must-fail):(.*)$", re.MULTILINE)


def variants(assignment: Assignment) -> list[Planted]:
    """The files of the assignment's ``variants`` folder, each with what it declares."""
    if not assignment.variants:
        return []
    folder = assignment.path(assignment.variants)
    if not folder.is_dir():
        raise UsageError(f"the assignment's variants folder {assignment.variants!r} is not a folder")
    found = []
    for path in sorted(folder.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        declared: dict[str, tuple[str, ...]] = {}
        for key, value in HEADER.findall(source):
            declared.setdefault(key, tuple(item.strip() for item in value.split(",") if item.strip()))
        relative = path.relative_to(folder).with_suffix("").as_posix()
        if "diagnosis" not in declared or "must-fail" not in declared:
            raise UsageError(f"variants/{relative}.py declares no '# diagnosis:' or no '# must-fail:' line")
        mistakes = tuple(mistake for mistake in declared["diagnosis"] if mistake != "none")
        found.append(Planted(f"variant-{_safe(relative)}", source, "variant", caught_by=declared["must-fail"], mistakes=mistakes))
    return found


class _Why:
    def __init__(self, why: str) -> None:
        self.why = why


def variant_source(variant: Callable, function: str, defined: set[str]) -> str | _Why:
    """The source of ``variant`` as the function ``function`` of a student's file whose
    top-level names are ``defined``, or why it cannot be written so."""
    name = getattr(variant, "__name__", repr(variant))
    try:
        source = textwrap.dedent(inspect.getsource(variant))
    except (OSError, TypeError):
        return _Why(f"its variant {name} has no source to read")
    try:
        node = ast.parse(source).body[0]
    except SyntaxError:
        return _Why(f"its variant {name} is not a top-level def (a lambda, or made by another function)")
    if not isinstance(node, ast.FunctionDef) or node.name != name:
        return _Why(f"its variant {name} is not a top-level def (a lambda, or made by another function)")
    missing = sorted(_free_names(node) - defined)
    if missing:
        return _Why(f"its variant {name} uses {', '.join(missing)}, which the reference's file does not define")
    node.name = function
    node.decorator_list = []
    return ast.unparse(node)


def _top_level_names(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _free_names(function: ast.FunctionDef) -> set[str]:
    """The names ``function`` reads that it does not bind itself (its globals)."""
    bound = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
    read = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not function:
            bound.update(arg.arg for arg in ast.walk(node.args) if isinstance(arg, ast.arg))
            if isinstance(node, ast.FunctionDef):
                bound.add(node.name)
        elif isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return read - bound


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)
