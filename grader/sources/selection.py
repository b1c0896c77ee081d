"""Which top-level statements of a notebook the grader runs, and why the others are left out.

A notebook is graded for the functions it defines, not for what its cells did when they
ran: cells that plot, print, call ``input()``, time the code or check it with the
lesson's asserts must not stop the functions from being graded, and a demo cell that
calls a buggy function must not turn every check into an import failure. So the module
a worker imports keeps, top to bottom:

- imports of what the sandbox has (numpy and Python's standard library);
- function and class definitions (their decorators and default values, and a class's
  body, run when they are defined, so those follow the rules below);
- anything assigned to one of the graded names (``head = make_head()``, where ``head``
  is graded, is how that notebook defines it);
- values the definitions use, directly or through other values: built from literals,
  names defined above, numpy and side-effect-free standard-library calls, and the
  notebook's own functions and classes (``EPS = 1e-9``, ``head = Head(16)``,
  ``CONFIG = make_config()``). A value nothing graded uses is demo data (``scores = Q
  @ K`` on arrays whose shapes do not match, ``out = head(Q, K, V)``): it is
  left out, since computing it could only fail or take time (see :func:`unused_values`);
- ``if`` and ``try`` statements whose every branch holds only the above (a ``try`` may
  also hold an import the sandbox lacks, when it handles the ImportError, and report a
  failure in its handlers).

Everything else is left out, each with a sentence for the student: bare expressions and
calls (``print``, plots, ``display``), asserts, loops, ``with`` blocks, file and input
calls, imports of packages the sandbox lacks, and any statement that uses a name only a
left-out statement defined.
"""

from __future__ import annotations

import ast
import builtins
import copy
import symtable
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace

AVAILABLE_MODULES = frozenset(sys.stdlib_module_names) | {"numpy"}
# Standard-library modules whose functions compute and return (no I/O, no waiting).
PURE_MODULES = frozenset({
    "math", "cmath", "functools", "itertools", "operator", "collections", "typing", "dataclasses",
    "enum", "fractions", "decimal", "numbers", "string", "re", "statistics", "types", "abc", "copy",
    "textwrap", "heapq", "bisect", "random", "array", "struct", "numpy",
})
# numpy functions that read or write files.
NUMPY_FILE_CALLS = frozenset({
    "load", "loadtxt", "genfromtxt", "fromfile", "fromregex", "save", "savez", "savez_compressed",
    "savetxt", "memmap", "tofile", "DataSource", "open_memmap",
})
SAFE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct",
    "ord", "pow", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "staticmethod", "classmethod", "str", "sum", "tuple", "type", "zip", "getattr", "hasattr", "super",
})
BUILTIN_NAMES = frozenset(dir(builtins))
UNUSED = "computes a value none of your functions uses, so the grader does not run it"
ONLY_SOME = "only definitions, imports and constants are run"
SHOWS = "shows a value or a plot: only your functions are graded"
# Names a notebook uses to show things, for a clearer reason than "a call".
DISPLAY_NAMES = frozenset({"display", "plt", "sns", "px", "go", "IPython", "HTML", "Markdown", "Image"})


@dataclass(frozen=True)
class Decision:
    """What becomes of a statement: ``kept`` or not, and the sentence why not. For a kept
    statement that only computes a value, ``reason`` is why it is left out after all if
    nothing graded uses that value (see :func:`unused_values`); "" when it always runs."""

    kept: bool
    reason: str


@dataclass
class Selection:
    """What the statements kept so far define, as the top-to-bottom run would see it."""

    graded: frozenset[str] = frozenset()  # the assignment's functions
    bound: set[str] = field(default_factory=set)
    # Names that hold the student's own code: functions, classes, and names assigned from them.
    student: set[str] = field(default_factory=set)
    modules: dict[str, str] = field(default_factory=dict)  # name -> the top-level module it came from
    written: set[str] = field(default_factory=set)  # modules a %%writefile cell wrote
    # Names only a left-out statement defined -> where that was, "cell 3, line 2".
    lost: dict[str, str] = field(default_factory=dict)
    star_import: bool = False

    def copy(self) -> Selection:
        """A copy to try a block on, every field its own."""
        return replace(self, **{item.name: copy.copy(getattr(self, item.name)) for item in fields(self)})

    def decide(self, statement: ast.stmt, where: str) -> Decision:
        """Keep ``statement`` (what it defines is noted) or say why it is left out (what it
        would have defined is noted as lost). ``where`` is "cell N, line M"."""
        reason = self._reason(statement)
        if reason is None:
            student = self._student_names(statement) if list(calls_in(statement)) else []
            unless_used = "" if defines_code(statement, self.graded) else _runs_student_code(student) if student else UNUSED
            self._keep(statement)
            return Decision(True, unless_used)
        if reason:
            for name in bound_names(statement):
                if name not in self.bound:
                    self.lost[name] = where
        return Decision(False, reason)

    def forget(self, names: list[str], where: str) -> None:
        """Names a left-out piece outside Python's syntax (``files = !ls``) would have defined."""
        for name in names:
            if name not in self.bound:
                self.lost[name] = where

    # -- the rules -----------------------------------------------------------------

    def _reason(self, statement: ast.stmt) -> str | None:
        """None to keep; "" to drop silently (it does nothing: ``pass``, a docstring); else why not."""
        if isinstance(statement, (ast.Pass, ast.Global, ast.Nonlocal)):
            return ""
        if isinstance(statement, ast.Expr):
            return "" if _is_string(statement.value) else self._shown(statement.value)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            return self._import_reason(statement)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            evaluated = [*statement.decorator_list, *statement.args.defaults, *filter(None, statement.args.kw_defaults)]
            return self._evaluated_reason(evaluated, binds_graded=statement.name in self.graded)
        if isinstance(statement, ast.ClassDef):
            # The class body runs now; of its methods, their decorators and defaults do.
            evaluated = [*statement.decorator_list, *statement.bases, *(k.value for k in statement.keywords)]
            evaluated += statement.body
            return self._evaluated_reason(
                evaluated, binds_graded=statement.name in self.graded, local=bound_names_in(statement.body)
            )
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = bound_names(statement)
            # An annotation is not evaluated (the module postpones them all).
            parts = [statement.target, statement.value] if isinstance(statement, ast.AnnAssign) else [statement]
            evaluated = [part for part in parts if part is not None]
            return self._evaluated_reason(evaluated, binds_graded=any(name in self.graded for name in targets))
        if isinstance(statement, ast.Assert):
            return "an assert that tests your code: the grader runs its own checks instead"
        if isinstance(statement, ast.If) and any(
            isinstance(name, ast.Name) and name.id == "__name__" for name in ast.walk(statement.test)
        ):
            return "an if statement on __name__, which is not the same in a notebook as when the grader imports your code"
        if isinstance(statement, (ast.If, ast.Try)):
            return self._compound_reason(statement)
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            return f"a loop at the top level: {ONLY_SOME}"
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            return f"a with block at the top level: {ONLY_SOME}"
        if isinstance(statement, ast.Delete):
            return "deletes names: every definition above it is graded as it stands"
        if isinstance(statement, ast.Raise):
            return "raises an error at the top level"
        return f"{ONLY_SOME}"

    def _shown(self, value: ast.expr) -> str:
        if not isinstance(value, ast.Call):
            return SHOWS
        root = _root(value.func)
        if root == "print":
            return "prints: printed output is not graded"
        if root in DISPLAY_NAMES:
            return SHOWS
        student = self._student_names(value)
        if student:
            return _runs_student_code(student)
        return f"a call at the top level: {ONLY_SOME}"

    def _import_reason(self, statement: ast.Import | ast.ImportFrom) -> str | None:
        if isinstance(statement, ast.ImportFrom):
            if statement.module == "__future__":
                return ""  # every notebook is read with postponed annotations already
            if statement.level == 0 and statement.module in self.written:
                return ""  # its names are the %%writefile cell's, read as part of the notebook
            modules = [statement.module or ""] if statement.level == 0 else [""]
        else:
            modules = [alias.name for alias in statement.names]
        for module in modules:
            top = module.partition(".")[0]
            if not module:
                return "a relative import: the grader grades this one file, with no package around it"
            if module in self.written:
                return (
                    f"imports {module} as a module: the grader reads the %%writefile cell that wrote it as part "
                    "of the notebook, so use its names directly (from ... import ...)"
                )
            if top not in AVAILABLE_MODULES:
                return (
                    f"imports {module}, which the grader's sandbox does not have (it has numpy and Python's "
                    "standard library): code that uses it fails when it runs"
                )
        return None

    def _evaluated_reason(self, parts: list[ast.AST], *, binds_graded: bool, local: set[str] = frozenset()) -> str | None:
        """Why code evaluated now (an assignment, decorators, defaults, a class body) may not run."""
        for part in parts:
            for name in sorted(loaded_names(part) - local):
                if name in self.bound:
                    continue
                if name in self.lost:
                    return f"uses {name}, which comes from a line the grader left out ({self.lost[name]})"
                if self.star_import or name in BUILTIN_NAMES:
                    continue
                return f"uses {name}, which nothing above it defines (the notebook is graded top to bottom)"
        if binds_graded:
            return None  # how this notebook defines a graded function, whatever it calls
        for part in parts:
            for call in calls_in(part):
                reason = self._call_reason(call)
                if reason is not None:
                    return reason
        return None

    def _call_reason(self, call: ast.Call) -> str | None:
        """Why a call made at the top level is not one the grader runs (None: it computes only)."""
        path = _dotted(call.func)
        root = path[0] if path else None
        if root is None or (root in self.bound and root not in self.modules):
            return None  # a method of a value built above, or of a literal
        if root in self.modules:
            module = self.modules[root]
            if module == "numpy" and set(path) & NUMPY_FILE_CALLS:
                return f"calls {'.'.join(path)}(), which reads or writes a file the grader does not have"
            if module in PURE_MODULES:
                return None
            return f"calls {'.'.join(path)}() from {module} at the top level: {ONLY_SOME}"
        if root in SAFE_BUILTINS:
            return None
        if root == "input":
            return "asks for input, which a grader cannot type"
        if root == "open":
            return "opens a file the grader does not have"
        if root == "print":
            return "prints: printed output is not graded"
        return f"calls {root}() at the top level: {ONLY_SOME}"

    def _student_names(self, node: ast.AST) -> list[str]:
        """The student's code ``node`` uses, the graded functions first (to name in a reason)."""
        return sorted(loaded_names(node) & self.student, key=lambda name: (name not in self.graded, name))

    def _compound_reason(self, statement: ast.If | ast.Try) -> str | None:
        """An if or try is kept when all of it would be (each branch is tried on a copy).
        In a try, what only reports a failure is allowed too: an import the sandbox lacks
        in its body, when a handler catches the ImportError (``try: from scipy.special
        import logsumexp`` / ``except ImportError: def logsumexp...`` then runs as it
        would here), and a print or raise in a handler."""
        trial = self.copy()
        if isinstance(statement, ast.If):
            reason = trial._evaluated_reason([statement.test], binds_graded=False)
            if reason:
                return f"an if statement whose condition {reason}"
        kind = "an if" if isinstance(statement, ast.If) else "a try"
        for block, role in _roles(statement):
            for inner in block:
                reason = trial._reason(inner)
                if reason is None:
                    trial._keep(inner)
                elif reason and not _reports_a_failure(statement, inner, role):
                    return f"{kind} statement with a line the grader does not run (line {inner.lineno}: {reason})"
        return None

    def _keep(self, statement: ast.stmt) -> None:
        if isinstance(statement, (ast.If, ast.Try)):
            trial = self.copy()
            for block in _blocks(statement):
                for inner in block:
                    if trial._reason(inner) is None:
                        trial._keep(inner)
            self.__dict__.update(trial.__dict__)
            return
        names = bound_names(statement)
        if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
            self.star_import = True
        for name in names:
            self.bound.add(name)
            self.lost.pop(name, None)
            self.modules.pop(name, None)
            self.student.discard(name)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name == "*":
                    continue
                module = statement.module if isinstance(statement, ast.ImportFrom) else alias.name
                self.modules[alias.asname or alias.name.partition(".")[0]] = (module or "").partition(".")[0]
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.student.add(statement.name)
        elif self._student_names(statement):
            self.student.update(names)  # an alias of the student's code is the student's code


def unused_values(kept: list[tuple[ast.stmt, str]]) -> set[int]:
    """The kept statements (by index; each with its Decision's reason) that only compute
    values nothing graded needs: no function, class or graded name uses them, directly or
    through another value. Such a value is demo data (``scores = Q @ K``, ``out =
    head(Q, K, V)``), and computing it could only fail or take time."""
    needed = set().union(*(_globals_used(statement) for statement, reason in kept if not reason))
    unused = set()
    for index in range(len(kept) - 1, -1, -1):
        statement, reason = kept[index]
        if not reason:
            continue
        if _changed_names(statement) & needed:
            needed |= _globals_used(statement)
        else:
            unused.add(index)
    return unused


def defines_code(statement: ast.stmt, graded: frozenset[str]) -> bool:
    """Imports, functions, classes, the graded names, and blocks holding any of them:
    kept whether or not anything uses them."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return True
    return bool(bound_names(statement) & graded)


def _globals_used(statement: ast.stmt) -> set[str]:
    """The module-level names ``statement`` reads, now or when its functions run (their
    own locals and parameters are not), as Python's symbol tables see them."""
    try:
        table = symtable.symtable(ast.unparse(statement), "<cell>", "exec")
    except (SyntaxError, RecursionError, ValueError):
        return {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)}
    found, tables = set(), [table]
    while tables:
        current = tables.pop()
        module_level = current.get_type() == "module"
        for symbol in current.get_symbols():
            if symbol.is_referenced() and (module_level or symbol.is_global()):
                found.add(symbol.get_name())
        tables.extend(current.get_children())
    return found


def _changed_names(statement: ast.stmt) -> set[str]:
    """The names a statement binds, and those whose objects it changes (``CONFIG["eps"] = 1``)."""
    targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
    changed = {_root(target) for target in targets if isinstance(target, (ast.Attribute, ast.Subscript))}
    return bound_names(statement) | {name for name in changed if name}


def _blocks(statement: ast.If | ast.Try) -> list[list[ast.stmt]]:
    return [block for block, _ in _roles(statement)]


def _roles(statement: ast.If | ast.Try) -> list[tuple[list[ast.stmt], str]]:
    """The blocks of an if or try, each with its role: "runs" or, a try's handler, "handles"."""
    blocks = [(statement.body, "runs"), (statement.orelse, "runs")]
    if isinstance(statement, ast.Try):
        blocks += [(handler.body, "handles") for handler in statement.handlers] + [(statement.finalbody, "runs")]
    return blocks


IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _reports_a_failure(statement: ast.If | ast.Try, inner: ast.stmt, role: str) -> bool:
    """Whether ``inner``, left out on its own, may stay inside the try ``statement``."""
    if not isinstance(statement, ast.Try):
        return False
    if role == "handles":
        printed = isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call) and _root(inner.value.func) == "print"
        return printed or isinstance(inner, ast.Raise)
    catches_import_errors = any(
        handler.type is None or any(
            isinstance(name, ast.Name) and name.id in IMPORT_ERRORS for name in ast.walk(handler.type)
        )
        for handler in statement.handlers
    )
    return catches_import_errors and isinstance(inner, (ast.Import, ast.ImportFrom)) and inner in statement.body


def _runs_student_code(names: list[str]) -> str:
    return (
        f"runs your {names[0]}() on an example: the grader calls your functions itself, on its own inputs"
    )


def _is_string(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, str)


def is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, in either order."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
    )


def _root(node: ast.expr) -> str | None:
    path = _dotted(node)
    return path[0] if path else None


def _dotted(node: ast.expr) -> list[str]:
    """``np.random.default_rng`` -> ["np", "random", "default_rng"]; calls and subscripts
    on the way are looked through (``np.random.default_rng(0).normal``); [] when the chain
    does not start at a name."""
    path: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            return [node.id, *reversed(path)]
        else:
            return []


def _evaluated_children(node: ast.AST) -> Iterator[ast.AST]:
    """The parts of ``node`` that run when it runs: not the bodies of functions and lambdas
    (only their decorators and defaults run)."""
    if isinstance(node, ast.Lambda):
        yield from node.args.defaults
        yield from filter(None, node.args.kw_defaults)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from node.decorator_list
        yield from node.args.defaults
        yield from filter(None, node.args.kw_defaults)
    else:
        yield from ast.iter_child_nodes(node)


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(_evaluated_children(current))


def loaded_names(node: ast.AST) -> set[str]:
    """Names ``node`` reads when it runs, less those its comprehensions and walruses bind."""
    loaded: set[str] = set()
    local: set[str] = set()
    for current in _walk(node):
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Load):
            loaded.add(current.id)
        elif isinstance(current, ast.AugAssign) and isinstance(current.target, ast.Name):
            loaded.add(current.target.id)  # x += 1 reads x
        elif isinstance(current, (ast.comprehension, ast.NamedExpr)):
            local.update(name.id for name in ast.walk(current.target) if isinstance(name, ast.Name))
    return loaded - local


def calls_in(node: ast.AST) -> Iterator[ast.Call]:
    """The calls ``node`` makes when it runs (none inside function or lambda bodies)."""
    return (current for current in _walk(node) if isinstance(current, ast.Call))


def bound_names(statement: ast.AST) -> set[str]:
    """The names a top-level statement defines when it runs (those its functions,
    lambdas and comprehensions bind stay inside them)."""
    found: set[str] = set()
    stack = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)  # what its body binds is its own
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(alias.asname or alias.name.partition(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def bound_names_in(statements: list[ast.stmt]) -> set[str]:
    """The names a block of statements defines."""
    return {name for statement in statements for name in bound_names(statement)}
