"""How a submission is read: a Python file or a Jupyter notebook, into the one module a
worker imports.

Every route that grades a file (``grader check``, ``grader grade``, the pytest plugin,
the Gradescope and PrairieLearn entry points) reads it here, so the same bytes always
become the same code. What a file *is* follows from its content, not its name: notebook
JSON saved as ``attention.py`` is read as a notebook, and Python source saved as
``attention.ipynb`` as Python. Reading is parsing only; nothing of the submission runs
in the process that reads it.

- :mod:`grader.sources.files`: a file's bytes, read without following a link or
  blocking on a pipe, and never more than the size limit.
- :mod:`grader.sources.python`: a Python file, its text encoding checked as PEP 263 says.
- :mod:`grader.sources.notebook`: a notebook's code cells, top to bottom, with magics,
  shell lines and stray top-level code left out (:mod:`grader.sources.selection` says
  which statements run), and a map from each line of the module back to its cell.
"""

from __future__ import annotations

import ast
import functools
import json
import keyword
import re
import sys
import threading
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader import assignments
from grader.assignments import Assignment
from grader.sources import files

MAX_PYTHON_BYTES = 1024 * 1024
# A notebook keeps its outputs (plots as base64 images), which the grader never reads;
# its code is held to MAX_PYTHON_BYTES once extracted.
MAX_NOTEBOOK_BYTES = 32 * 1024 * 1024
NOTEBOOK_SUFFIX = ".ipynb"
# What the grader calls a notebook it wrote itself of a kernel's history (grader.kernel): read
# as a notebook of any number of cells. Only the grader gives it: a file's own name never does.
KERNEL_HISTORY_SUFFIX = ".kernel-history"
MAX_LEFT_OUT = 200  # listed in a report; a notebook of thousands of stray lines is summed up


class Unusable(Exception):
    """A file that cannot be graded at all; the message is one sentence for the student."""


@dataclass(frozen=True)
class LeftOut:
    """A piece of a notebook the grader did not run, and why (in a student's words)."""

    cell: int
    line: int
    code: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"cell": self.cell, "line": self.line, "code": self.code, "reason": self.reason}


@dataclass(frozen=True)
class Source:
    """A submission as a worker imports it.

    ``code`` is the module's source. For a notebook, ``lines[i]`` is the (cell, line) that
    line ``i + 1`` of ``code`` came from (cells numbered from 1 at the top of the
    notebook, Markdown cells included), ``cells`` the cells any code came from and
    ``left_out`` what was not run. ``defined_only_in`` maps each name that only left-out
    code defines to that piece, so "does not define" and NameError can say why.
    """

    code: bytes
    kind: str = "python"
    lines: tuple[tuple[int, int], ...] = ()
    cells: tuple[int, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    defined_only_in: dict[str, LeftOut] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    name: str = "submission.py"  # what feedback calls the file: see display_name

    def where(self, line: int) -> str:
        """Where line ``line`` of ``code`` is, as the student finds it in their file."""
        return f"{self.name}, {self.line_at(line)}"

    def line_at(self, line: int) -> str:
        """``line 4`` of a Python file; ``cell 3, line 2`` of a notebook."""
        if self.kind != "notebook":
            return f"line {line}"
        if not 0 < line <= len(self.lines) or self.lines[line - 1][0] == 0:
            return "the grader's first line"
        cell, cell_line = self.lines[line - 1]
        return f"cell {cell}, line {cell_line}"

    def why_missing(self, function: str) -> str:
        """A clause saying why ``function`` is not defined, when left-out code defined it, or
        code under ``if __name__ == "__main__":``."""
        piece = self.defined_only_in.get(function)
        if piece is not None:
            return f" (cell {piece.cell} defines it, but the grader left that out: {piece.reason})"
        if function in self._defined_when_run:
            return (
                ': it is defined only under if __name__ == "__main__":, which runs when you run the file, '
                "not when the grader imports it; define it at the top level"
            )
        return ""

    @functools.cached_property
    def _top_level(self) -> tuple[ast.stmt, ...]:
        """The module's top-level statements, parsed once (none when it does not parse)."""
        try:
            with _PARSING:
                return tuple(ast.parse(self.code).body)
        except Exception:  # a syntax error, or a file built to exhaust the parser
            return ()

    @functools.cached_property
    def _defined_when_run(self) -> frozenset[str]:
        """The names bound inside a top-level ``if __name__ == "__main__":``."""
        from grader.sources.selection import bound_names

        guards = [statement for statement in self._top_level if isinstance(statement, ast.If) and _is_main_guard(statement.test)]
        return frozenset(name for guard in guards for name in bound_names(guard))

    def why_undefined(self, name: str) -> str:
        """A sentence for a NameError of ``name``, when left-out code defined it."""
        piece = self.defined_only_in.get(name)
        if piece is None:
            return ""
        return f"; {name} comes from cell {piece.cell}, line {piece.line}, which the grader left out: {piece.reason}"

    @functools.cached_property
    def defined_names(self) -> frozenset[str]:
        """The names the module's top level defines (none when it does not parse)."""
        from grader.sources.selection import bound_names

        return frozenset(name for statement in self._top_level for name in bound_names(statement))

    @property
    def function_names(self) -> frozenset[str]:
        """The top-level functions the module defines (none when it does not parse)."""
        return frozenset(name for name, _, _ in self._function_lines)

    def function_at(self, line: int) -> str | None:
        """The top-level function whose body holds line ``line`` of ``code``, if one does."""
        for name, first, last in self._function_lines:
            if first <= line <= last:
                return name
        return None

    @functools.cached_property
    def _function_lines(self) -> tuple[tuple[str, int, int], ...]:
        return tuple(
            (node.name, node.lineno, node.end_lineno or node.lineno)
            for node in self._top_level if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        )

    def summary(self) -> dict[str, Any] | None:
        """What the report says of how the file was read (None for a plain Python file)."""
        if self.kind != "notebook" and not self.notes:
            return None
        found: dict[str, Any] = {"kind": self.kind, "notes": list(self.notes)}
        if self.kind == "notebook":
            found["cells"] = list(self.cells)
            found["left_out"] = [piece.to_dict() for piece in self.left_out[:MAX_LEFT_OUT]]
            found["left_out_count"] = len(self.left_out)
        return found


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    return {ast.unparse(test.left), ast.unparse(test.comparators[0])} == {"__name__", "'__main__'"}


def is_notebook_name(suffix: str) -> bool:
    """Whether a file of this suffix (``.ipynb``) is handed in as a notebook."""
    return suffix.lower() == NOTEBOOK_SUFFIX


def display_name(suffix: str, named_as: str) -> str:
    """What feedback calls a submission with this suffix, named as ``named_as`` (the
    handout's file name, or the student's own: see :func:`own_stem`), a notebook's with
    ``.ipynb`` whatever it holds."""
    stem = Path(named_as).stem
    return f"{stem}{NOTEBOOK_SUFFIX}" if is_notebook_name(suffix) or suffix == KERNEL_HISTORY_SUFFIX else f"{stem}.py"


_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# Names a reproduction's `from <name> import ...` would find elsewhere first (or that a
# student's file of that name hides from the code it imports).
_TAKEN_NAMES = sys.stdlib_module_names | {"numpy"}


def own_stem(path: Path) -> str | None:
    """The stem of ``path`` where feedback may call the file by its own name (``my_head`` of
    ``my_head.py``: the "line 8" a student finds, and the module a reproduction imports): a
    ``.py`` or ``.ipynb`` file whose stem is a plain module name (ASCII letters, digits and
    underscores, at most 64), not a keyword, a dunder, a standard library module's or
    numpy's, so never one that could hold a control character or a path. None for any other
    (``Lab 3.ipynb``, ``numpy.py``, ``head.txt``): feedback then uses the handout's name."""
    stem = path.stem
    plain = path.suffix in (".py", NOTEBOOK_SUFFIX) and _MODULE_NAME.fullmatch(stem) and not keyword.iskeyword(stem)
    return stem if plain and not stem.startswith("__") and stem not in _TAKEN_NAMES else None


def size_limit(path: Path) -> int:
    """The largest file of ``path``'s kind (by its name: the size is checked before reading)."""
    return MAX_NOTEBOOK_BYTES if is_notebook_name(path.suffix) or path.suffix == KERNEL_HISTORY_SUFFIX else MAX_PYTHON_BYTES


def read_bytes(path: Path, *, within: Path | None = None, follow_links: bool = True) -> bytes:
    """A submission's bytes, read once: every later step grades exactly these. Raises
    :class:`UsageError` with one sentence for a file that cannot be read, is too large, is
    not a regular file, or is a link where none may be (see :mod:`grader.sources.files`)."""
    return files.read_submission(path, size_limit(path), within=within, follow_links=follow_links)


def json_text(content: bytes) -> str | None:
    """``content`` decoded as JSON may be (UTF-8, -16 or -32, a byte order mark dropped),
    or None when it is not text in any of them."""
    try:
        return content.decode(json.detect_encoding(content)).removeprefix("\ufeff")
    except (UnicodeDecodeError, LookupError):
        return None


def looks_like_notebook(content: bytes) -> bool:
    """Whether ``content`` is JSON shaped like a notebook (cells, or nbformat 3's worksheets)."""
    text = json_text(content)
    if text is None or not text.lstrip().startswith("{"):
        return False
    try:
        document = json.loads(text)
    except Exception:  # broken, or nested past what the parser follows
        return False
    return isinstance(document, dict) and any(key in document for key in ("cells", "worksheets", "nbformat"))


# Python 3.11 keeps ast.parse's recursion count in the interpreter, not the thread: two
# threads building syntax trees at once (a batch's jobs reading notebooks) now and then
# make one fail with "SystemError: AST constructor recursion depth mismatch" (CPython
# gh-106905). So files are parsed one at a time; a notebook takes milliseconds.
_PARSING = threading.Lock()


def parse(content: bytes, *, suffix: str = ".py", assignment: Assignment | None = None, stem: str | None = None) -> Source:
    """The module a worker imports for a file with these bytes, written for ``assignment``
    (default: the default one). ``suffix`` and ``stem`` name it in feedback (default stem:
    the handout's); content decides the kind. Raises :class:`Unusable` with one sentence."""
    assignment = assignment or assignments.get()
    with _PARSING:
        return _parse(content, suffix, assignment, display_name(suffix, stem or assignment.handout))


def _parse(content: bytes, suffix: str, assignment: Assignment, name: str) -> Source:
    from grader.sources import notebook, python  # notebook imports nbformat only when it reads one

    try:
        if looks_like_notebook(content):
            source = notebook.parse(content, name, assignment, any_length=suffix == KERNEL_HISTORY_SUFFIX)
            if not is_notebook_name(suffix):
                source = _noted(source, "This file holds a Jupyter notebook, not Python source: it was graded as a notebook.")
            return source
        if is_notebook_name(suffix):
            if (json_text(content) or "").lstrip().startswith("{"):
                raise Unusable(notebook.broken_json_reason(content, name))
            if len(content) > MAX_PYTHON_BYTES:
                raise Unusable(f"{name} holds Python source, not a notebook, and more than {MAX_PYTHON_BYTES} bytes of it")
            source = python.parse(content, name=name, task=assignment.task)
            return _noted(source, "This .ipynb file holds Python source, not a notebook: it was graded as a Python file.")
        return python.parse(content, name=name, task=assignment.task)
    except Unusable:
        raise
    except Exception as error:  # a file no rule above foresaw: its own report, never a stopped batch
        raise Unusable(f"{name} could not be read ({_where(error)}); please tell your instructor") from None


def _where(error: Exception) -> str:
    """The error's type and message and the grader's innermost line it came from: what a
    maintainer needs to find the rule that is missing."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "/grader/" in frame.filename]
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    message = str(error).splitlines()[0][:120] if str(error) else ""
    return f"{type(error).__name__}{': ' + message if message else ''}{where}"


def read(path: Path, assignment: Assignment | None = None) -> Source:
    """:func:`parse` of the file at ``path``, called in feedback by its own name where it
    may be (:func:`own_stem`); :class:`UsageError` if it cannot be read."""
    return parse(read_bytes(path), suffix=path.suffix, assignment=assignment, stem=own_stem(path))


def _noted(source: Source, note: str) -> Source:
    return replace(source, notes=(*source.notes, note))
