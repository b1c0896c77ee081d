"""The assignments: each one folder, and an engine that names none of their functions."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from grader import assignments
from grader.assignments.rubric import available_check_ids, load_rubric
from grader.errors import UsageError
from grader.resources import project_file

PACKAGE = Path(assignments.__file__).resolve().parent.parent
STUDENT_FUNCTIONS = {name for name in assignments.NAMES for name in assignments.get(name).function_names}


def _engine_modules() -> list[Path]:
    """Every module of the grader outside the assignments' own folders."""
    return [
        path for path in sorted(PACKAGE.rglob("*.py"))
        if not (path.relative_to(PACKAGE).parts[0] == "assignments" and len(path.relative_to(PACKAGE).parts) > 2)
    ]


def _mentions(text: str) -> bool:
    """Whether ``text`` (a string or comment) names a student function: a name that is one
    only, anywhere; one that is also a word of the lesson (attention), called or quoted."""
    words = sorted(name for name in STUDENT_FUNCTIONS if "_" in name or name == "softmax")
    called = "|".join(sorted(STUDENT_FUNCTIONS))
    return bool(re.search(rf"\b({'|'.join(words)})\b|\b({called})\(|[\"'`]({called})[\"'`]", text))


def test_no_module_outside_an_assignment_names_a_student_function():
    """Names, strings, docstrings and comments: an engine that knew a function would need
    editing for the next assignment."""
    found = []
    for path in _engine_modules():
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            named = token.type == tokenize.NAME and token.string in STUDENT_FUNCTIONS
            if named or token.type in (tokenize.STRING, tokenize.COMMENT) and _mentions(token.string):
                found.append(f"{path.relative_to(PACKAGE)}:{token.start[0]}: {token.string[:60]!r}")
    assert len(_engine_modules()) > 40
    assert found == []


def test_the_check_of_names_would_see_one():
    """The scan above must be able to fail: a string that names a function is caught."""
    assert _mentions('{"softmax": ...}') and _mentions("out, A = attention(Q, K, V)") and _mentions("'attention'")
    assert not _mentions('"attention weights, as attention.py computes them"')


@pytest.mark.parametrize("name", assignments.NAMES)
def test_each_assignment_names_files_that_exist_and_a_rubric_of_its_checks(name: str):
    assignment = assignments.get(name)
    assert assignment.name == name
    for relative in (assignment.reference, assignment.rubric, *assignment.template.values()):
        assert project_file(relative).is_file(), relative
    assert assignment.handout in assignment.template
    rubric = load_rubric(project_file(assignment.rubric))
    assert rubric.assignment == name
    assert set(rubric.check_ids) <= available_check_ids(assignment)
    assert rubric.max_score == 100
    assert set(assignment.reference_functions()) == set(assignment.function_names) == set(assignment.small_calls())
    for function in assignment.functions:
        assert function.signature.startswith(f"{function.name}(")
        assert len(function.parameters) >= 1


def test_an_unknown_assignment_is_one_sentence():
    with pytest.raises(UsageError, match="no assignment is called 'attention-head': the grader knows attention_head"):
        assignments.get("attention-head")


def test_a_trailing_none_is_not_sent():
    function = assignments.Function("f", ("a", "b"), "f(a, b=None)")
    assert function.request((1, None), {}) == ([1], {})
    assert function.request((1, 2), {"c": None, "d": 0}) == ([1, 2], {"d": 0})


def _grader_imports(path: Path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "grader":
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "grader")
    return found


def test_the_shipped_assignments_import_only_the_authoring_surface():
    """What a course's assignment may import (grader.authoring) is all the shipped ones use,
    besides each other: the rest of the grader can change without breaking an assignment."""
    allowed = ("grader.authoring", "grader.assignments.attention_head", "grader.assignments.multi_head")
    outside_the_surface = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for name in assignments.NAMES
        for path in sorted((PACKAGE / "assignments" / name).rglob("*.py"))
        for module in _grader_imports(path)
        if not module.startswith(allowed)
    }
    assert outside_the_surface == set()
    assert _grader_imports(PACKAGE / "assignments" / "multi_head" / "mistakes.py")  # the scan sees imports


def test_the_authoring_surface_is_typed_and_exports_what_it_lists():
    import importlib

    for name in ("grader.authoring", "grader.authoring.checks", "grader.authoring.mistakes", "grader.authoring.steps"):
        module = importlib.import_module(name)
        assert module.__all__ and all(hasattr(module, exported) for exported in module.__all__), name
    from grader.authoring import extend, functions_of, here

    for function in (extend, functions_of, here):
        assert "return" in function.__annotations__


@pytest.mark.parametrize("name", assignments.NAMES)
def test_the_shipped_assignments_pass_validate_with_no_warning(name: str):
    """They are the examples a course copies: every known mistake is validated, by a file of
    the assignment's variants/ folder (most of their variants are made by helpers), and
    every one declares the checks it costs there."""
    from click.testing import CliRunner

    from grader.cli import cli

    result = CliRunner().invoke(cli, ["validate", name, "--mutants", "0", "--sandbox", "process"])
    assert result.exit_code == 0, result.output
    assert f"{name} passes validation." in result.output
    assert "warn" not in result.output and "FAIL" not in result.output, result.output
    assert result.output.count("  ok    variant ") == len(list(project_file(assignments.get(name).variants).rglob("*.py")))
