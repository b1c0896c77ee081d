"""The code a kernel has run, as the notebook the grader reads.

A kernel's history only grows: a student who has run cells for a whole afternoon has
thousands of inputs, most of them old definitions run again, prints and timings, and now
and then a cell of pasted data. The grader reads a notebook within limits (cells, bytes
of code), so the history it is given is only the cells that can still matter to the
latest definitions (:func:`live`): a cell is left behind once every name it binds is bound
again by a later cell before anything reads it, or when it binds nothing at all (a print,
a plot, an assert: statements the grader leaves out of any notebook). What is graded is
what the kernel now holds; the cells keep their numbers (cell N is In [N]).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from grader.sources.notebook import MAX_CELL_BYTES, as_ipython_reads, kernel_history

# The grader's own lines: they are how the student asks for a grade, not part of the code
# graded, so they are blanked (the lines around them keep their numbers).
GRADER_LINE = re.compile(r"^\s*%(?:grade\b|(?:re)?load_ext\s+grader\s*$)")
# Lines IPython runs that are not Python (%magic, !shell, name?): blanked to read the rest.
IPYTHON_LINE = re.compile(r"^\s*(?:[%!]|\S+\?\s*$)|^\s*[A-Za-z_]\w*\s*=\s*[%!]")
# A cell magic that makes its body a module of its own, which a later import reads.
WRITES_A_FILE = re.compile(r"^\s*%%(?:writefile|file)\b")
# What a cell that does not parse seems to define (its syntax error is reported if it stays).
DEFINED = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)
# Calls that may read any name at all.
READS_ANYTHING = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__"})
ALWAYS = "*always*"
# The top-level statements the notebook reader may keep (grader.sources.selection).
KEPT_STATEMENTS = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
    ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.Try, ast.TryStar,
)  # the name a cell "binds" when it must stay whatever comes after


def ran(shell: Any) -> list[str]:
    """The cells ``shell`` (an IPython shell) has run, In [1] first, as they were typed
    (``In`` holds them as IPython rewrote them: magics become calls)."""
    raw = getattr(shell.history_manager, "input_hist_raw", None)
    cells = list(raw if raw is not None else shell.user_ns.get("_ih", []))
    return [str(cell) for cell in cells[1:]]  # In [0] is always empty


def without_grader_lines(cells: list[str]) -> list[str]:
    """``cells`` without the lines that load or run the grader itself."""
    return ["\n".join("" if GRADER_LINE.match(line) else line for line in cell.split("\n")) for cell in cells]


def notebook(cells: list[str]) -> bytes:
    """The notebook the grader reads for ``cells``: the live ones (:func:`live`), each with
    its number, without the grader's lines."""
    return kernel_history(live(without_grader_lines(cells)))


def live(cells: list[str]) -> list[tuple[int, str]]:
    """``(N, cell)`` for each of ``cells`` (In [1] first) whose code the kernel's latest
    definitions may still depend on (see the module docstring)."""
    binder: dict[str, int] = {}  # each name, and the cell whose binding of it is the current one
    needed: set[int] = set()
    for index, cell in enumerate(cells):
        uses = _uses(cell)
        if uses.reads_anything:
            needed |= set(binder.values())
        needed |= {binder[name] for name in uses.reads if name in binder}
        for name in uses.binds:
            binder[name] = index
        if ALWAYS in uses.binds:
            needed.add(index)
    # A history that binds nothing still shows the reader its latest cell: its report then
    # says what was left out and why, as for the whole history.
    kept = needed | set(binder.values()) or {len(cells) - 1}
    return [(index + 1, cell) for index, cell in enumerate(cells) if index in kept]


@dataclass
class _Uses:
    binds: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    reads_anything: bool = False


def _uses(cell: str) -> _Uses:
    """The top-level names ``cell`` binds, and those it reads while it runs (not within
    the bodies of the functions it defines, which read names when called)."""
    if WRITES_A_FILE.match(cell):
        return _Uses(binds={ALWAYS})
    if len(cell) > MAX_CELL_BYTES // 4 and len(cell.encode()) > MAX_CELL_BYTES:
        # Left out whole by the reader, unparsed: it stays only while a definition in it is current.
        return _Uses(binds=set(DEFINED.findall(cell)))
    lines = as_ipython_reads(cell)  # without >>> prompts or an indent every line shares, as IPython runs it
    if lines and lines[0].lstrip().startswith("%%"):
        lines[0] = ""  # %%time and its kind run the body as the notebook's own code
    tree = _parsed("\n".join(lines)) or _parsed("\n".join("" if IPYTHON_LINE.match(line) else line for line in lines))
    if tree is None:  # left out whole by the reader, with its syntax error: kept while what it defines is current
        return _Uses(binds={name for name in DEFINED.findall(cell)})
    visitor = _Visitor()
    for statement in tree.body:
        # What the reader leaves out of any notebook (a print, an assert, a loop) neither
        # reads nor binds anything in the code graded.
        if isinstance(statement, KEPT_STATEMENTS):
            visitor.visit(statement)
    return visitor.uses


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Visitor(ast.NodeVisitor):
    """The names a cell's statements bind at top level and read as they run."""

    def __init__(self) -> None:
        self.uses = _Uses()
        self.scopes = 0  # inside a class body or a comprehension: what is stored there is not top level
        self.maybe = 0  # inside an if or a try: a name bound there may not be, so the binding before stays

    def _bind(self, name: str) -> None:
        if self.scopes:
            return
        self.uses.binds.add(name)
        if self.maybe:
            self.uses.reads.add(name)

    def _conditional(self, node: ast.AST) -> None:
        self.maybe += 1
        self.generic_visit(node)
        self.maybe -= 1

    visit_If = visit_Try = visit_TryStar = _conditional

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) or isinstance(node.ctx, ast.Del):
            self.uses.reads.add(node.id)  # del needs the binding it removes
        if not isinstance(node.ctx, ast.Load):
            self._bind(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in READS_ANYTHING:
            self.uses.reads_anything = True
        self.generic_visit(node)

    def _assigned(self, targets: list[ast.expr]) -> None:
        # W[0] = 1 and head.scale = 2 change what an earlier cell bound: they read it, and bind it anew.
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, (ast.Subscript, ast.Attribute)):
                    base = node.value
                    while isinstance(base, (ast.Subscript, ast.Attribute)):
                        base = base.value
                    if isinstance(base, ast.Name) and not self.scopes:
                        self.uses.reads.add(base.id)
                        self._bind(base.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assigned(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._assigned([node.target])
        if isinstance(node.target, ast.Name):
            self.uses.reads.add(node.target.id)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # The annotation is never evaluated (from __future__ import annotations). Without a
        # value (T: float) nothing is bound, though the reader counts the name as defined:
        # the cell stays, and so does the binding before it.
        if node.value is None:
            if isinstance(node.target, ast.Name) and not self.scopes:
                self.uses.binds.add(node.target.id)
                self.uses.reads.add(node.target.id)
            return
        self._assigned([node.target])
        self.visit(node.target)
        self.visit(node.value)

    def _defined(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._bind(node.name)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._defined(node)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._defined(node)
        for part in [*node.bases, *node.keywords]:
            self.visit(part)
        self.scopes += 1
        for statement in node.body:
            self.visit(statement)
        self.scopes -= 1

    def _comprehension(self, node: ast.AST) -> None:
        self.scopes += 1
        self.generic_visit(node)
        self.scopes -= 1

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._bind(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            # A star import binds names no one can list: the same star import later stands for it.
            self._bind(f"*{node.module}" if alias.name == "*" else alias.asname or alias.name)
