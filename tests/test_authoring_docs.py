"""The public authoring surface is documented, as the documentation site renders it.

The site renders ``grader.authoring``, ``grader.authoring.checks``,
``grader.authoring.mistakes`` and ``grader.authoring.steps`` with Sphinx autodoc
(``:members:`` and ``:imported-members:``), so what a course author reads is the
docstrings of what those modules export. These tests hold the docstrings to that:

- every public name (a module's ``__all__``; else the public names it defines or imports)
  is documented. A class, a function or a module needs a docstring of its own
  (``inspect.getdoc``; a dataclass's generated signature and a builtin type's docstring
  do not count). Anything else (a constant such as ``RAISED``, a type alias such as
  ``Table``) has no docstring of its own, and autodoc renders none for it, so its
  exporting module's docstring must describe it: a line of that docstring starts with
  it in double backticks (a definition-list term, or a bullet ``- ``NAME``: ...``);
- every field of a dataclass among them is named in the class docstring, and every
  parameter of a function (and of a public method of an exported class) in its docstring;
- every ``::`` literal block of those docstrings compiles as Python, except a block that
  is clearly not Python by this rule: its first line starts with ``$`` (a shell command),
  is a TOML table header (``[project]``), or ends with ``/`` (a tree of files);
- every docstring parses as reST with no warning or error (with docutils, when it is
  installed), but for the roles only Sphinx knows (``:class:`...```).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import textwrap
import types

import pytest

MODULES = ("grader.authoring", "grader.authoring.checks", "grader.authoring.mistakes", "grader.authoring.steps")
# A literal block that is not Python: a shell command, a TOML table header, a tree of files.
NOT_PYTHON = re.compile(r"^(\$|\[[\w.\"'-]+\]\s*$)|/\s*$")


def _public_names(module: types.ModuleType) -> list[str]:
    """The module's ``__all__``, else every public name it defines or imports (not a module
    it imports only to use, such as ``dataclasses``)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    ]


def _exported() -> list[tuple[str, str, object]]:
    """(module name, public name, object) for everything the four modules export."""
    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        found += [(module_name, name, getattr(module, name)) for name in _public_names(module)]
    return found


EXPORTED = _exported()


def _has_docstring(value: object) -> bool:
    return inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value) or callable(getattr(value, "__wrapped__", None))


def _own_doc(value: object) -> str:
    """The docstring ``value`` has of its own: none for a class that only inherits one, nor
    for a dataclass whose docstring is the signature the dataclass decorator made."""
    if inspect.isclass(value):
        doc = value.__dict__.get("__doc__") or ""
        if dataclasses.is_dataclass(value) and doc.startswith(f"{value.__name__}("):
            return ""
        return inspect.cleandoc(doc)
    return inspect.getdoc(value) or ""


def _members(value: object) -> list[tuple[str, object]]:
    """The public methods and properties a class defines itself (what autodoc renders of it)."""
    if not inspect.isclass(value):
        return []
    return [
        (name, member) for name, member in vars(value).items()
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, (property, __import__("functools").cached_property)))
    ]


def _documented_objects() -> list[tuple[str, object]]:
    """Every object whose docstring the site renders: the exports that carry one, their
    methods and properties, and the functions of an exported module (``expect``)."""
    objects = []
    for module_name, name, value in EXPORTED:
        if not _has_docstring(value):
            continue
        objects.append((f"{module_name}.{name}", value))
        objects += [(f"{module_name}.{name}.{member_name}", member) for member_name, member in _members(value)]
        if inspect.ismodule(value):
            objects += [
                (f"{module_name}.{name}.{function_name}", function)
                for function_name, function in vars(value).items()
                if inspect.isfunction(function) and function.__module__ == value.__name__ and not function_name.startswith("_")
            ]
    return objects


DOCUMENTED = _documented_objects()


def _docstrings() -> list[tuple[str, str]]:
    """Every docstring the site renders: the four modules' and every documented object's."""
    texts = [(name, inspect.getdoc(importlib.import_module(name)) or "") for name in MODULES]
    for name, value in DOCUMENTED:
        doc = _own_doc(value) if inspect.isclass(value) else inspect.getdoc(value) or ""
        texts.append((name, doc))
    return texts


DOCSTRINGS = _docstrings()


def literal_blocks(doc: str) -> list[tuple[int, str]]:
    """Each ``::`` literal block of a docstring (as reST reads it: an indented block after a
    line ending in ``::`` that is no directive), dedented, with its first line's number."""
    lines = doc.splitlines()
    blocks = []
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.endswith("::") or stripped.startswith(".. "):
            continue
        indent = len(line) - len(line.lstrip())
        body: list[str] = []
        start = None
        for later in range(number + 1, len(lines)):
            text = lines[later]
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            if start is None and text.strip():
                start = later
            if start is not None:
                body.append(text)
        if start is not None:
            blocks.append((start + 1, textwrap.dedent("\n".join(body)).strip("\n")))
    return blocks


def test_the_modules_export_something():
    assert {module for module, _, _ in EXPORTED} == set(MODULES)
    assert len(EXPORTED) > 30


@pytest.mark.parametrize(("module", "name", "value"), EXPORTED, ids=[f"{m}.{n}" for m, n, _ in EXPORTED])
def test_every_public_name_is_documented(module, name, value):
    if _has_docstring(value):
        assert _own_doc(value).strip(), f"{module}.{name} has no docstring of its own"
    else:
        module_doc = inspect.getdoc(importlib.import_module(module)) or ""
        term = re.compile(rf"^\s*(- )?(``\w+``,\s*)*``{re.escape(name)}``", re.MULTILINE)
        assert term.search(module_doc), (
            f"{module}.{name} ({type(value).__name__}) has no docstring of its own: "
            f"{module}'s docstring must describe it, on a line that starts with ``{name}``"
        )


DATACLASSES = [(f"{module}.{name}", value) for module, name, value in EXPORTED if dataclasses.is_dataclass(value)]


@pytest.mark.parametrize(("name", "cls"), DATACLASSES, ids=[name for name, _ in DATACLASSES])
def test_every_field_of_a_dataclass_is_documented(name, cls):
    doc = _own_doc(cls)
    undocumented = [
        field.name for field in dataclasses.fields(cls)
        if not re.search(rf"(^\s*{re.escape(field.name)}\s*$)|``{re.escape(field.name)}``", doc, re.MULTILINE)
    ]
    assert not undocumented, f"{name}'s docstring does not describe its fields {undocumented}"


CALLABLES = [(name, value) for name, value in DOCUMENTED if inspect.isfunction(value) or inspect.isfunction(getattr(value, "__wrapped__", None))]


@pytest.mark.parametrize(("name", "function"), CALLABLES, ids=[name for name, _ in CALLABLES])
def test_every_parameter_is_documented(name, function):
    doc = inspect.getdoc(function) or ""
    parameters = [parameter for parameter in inspect.signature(function).parameters if parameter not in ("self", "cls")]
    undocumented = [parameter for parameter in parameters if not re.search(rf"\b{re.escape(parameter)}\b", doc)]
    assert not undocumented, f"{name}'s docstring does not name its parameters {undocumented}"


BLOCKS = [
    (f"{name}:{line}", block)
    for name, doc in DOCSTRINGS
    for line, block in literal_blocks(doc)
]


def test_the_docstrings_hold_examples():
    assert len(BLOCKS) > 40


@pytest.mark.parametrize(("where", "block"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_every_python_example_compiles(where, block):
    if NOT_PYTHON.search(block.splitlines()[0]):
        pytest.skip("not Python (a shell command, a TOML table or a tree of files)")
    compile(block, where, "exec", dont_inherit=True)


def test_literal_blocks_are_found_as_rest_reads_them():
    doc = "Text::\n\n    a = 1\n\n    b = 2\n\nMore.\n\nterm\n    Example::\n\n        f(x)\n    after\n\n.. note::\n\n    not a block\n"
    assert literal_blocks(doc) == [(3, "a = 1\n\nb = 2"), (12, "f(x)")]
    assert NOT_PYTHON.search("$ grader validate course/layer_norm")
    assert NOT_PYTHON.search("[project]") and NOT_PYTHON.search("layer_norm/")
    assert not NOT_PYTHON.search("[x for x in range(3)]")


# Roles of Sphinx's (:class:`X`, :func:`f`) are unknown to plain docutils: their errors are not the docstring's.
SPHINX_ONLY = ("Unknown interpreted text role", 'No role entry for', "Trying ")


@pytest.mark.parametrize(("name", "doc"), DOCSTRINGS, ids=[name for name, _ in DOCSTRINGS])
def test_every_docstring_is_valid_rest(name, doc):
    core = pytest.importorskip("docutils.core")
    from docutils import nodes

    tree = core.publish_doctree(
        doc, settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": False}
    )
    problems = [
        message.astext() for message in tree.findall(nodes.system_message)
        if message["level"] >= 2 and not any(text in message.astext() for text in SPHINX_ONLY)
    ]
    assert not problems, f"{name}: " + "\n".join(problems)
