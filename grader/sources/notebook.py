"""A Jupyter notebook as a submission: its code cells, top to bottom, as one module.

nbformat reads the file (it knows every format version, converts nbformat 3's
worksheets, and validates against the format's schema); outputs are never read. The
cells are taken in the order they stand, as "Restart & Run All" runs them: the order a
student last ran them in is not in the file. Within each code cell, as IPython reads it:

- ``>>>`` prompts and an indent common to every line are removed;
- a cell magic whose body runs as Python in the notebook (``%%time``, ``%%capture``)
  keeps its body; any other (``%%bash``, ``%%writefile``, ``%%timeit``, which runs its
  body inside a function) leaves the cell out;
- a cell that is not Python as it stands has its IPython lines (``%matplotlib inline``,
  ``!pip install``, ``files = !ls``, ``np.sum?``) left out, each replaced by ``pass`` so
  the lines around it keep their numbers: only lines that start a statement, as IPython
  reads them, so a line inside brackets or a string that starts with ``%`` or ``!``
  stays as it is. One that still does not parse is left out whole, with its syntax error;
- its top-level statements are kept or left out as :mod:`grader.sources.selection` says.

The module starts with ``from __future__ import annotations``, so an annotation naming
a package the sandbox lacks (``torch.Tensor``) never stops a definition.
"""

from __future__ import annotations

import ast
import io
import itertools
import json
import logging
import re
import textwrap
import tokenize
import warnings
from dataclasses import dataclass
from typing import Any

from grader.assignments import Assignment
from grader.sources import MAX_PYTHON_BYTES, LeftOut, Source, Unusable, json_text
from grader.sources.selection import Selection, is_main_guard, unused_values

PREAMBLE = "from __future__ import annotations\n"
# Cell magics that run their body as Python in the notebook's namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "capture", "prun", "debug"})
# A line IPython may read as its own: a magic, a shell command, a help lookup, or names
# assigned from a magic or a shell command. (Written so that no input makes it backtrack.)
IPYTHON_LINE = re.compile(
    r"^\s*(?:[!%?]|[\w.]+\?\??\s*$|(?P<assigned>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*[!%])"
)
PROMPT = re.compile(r"^(?:>>>|\.\.\.) ?")
DEFINED = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*=[^=]", re.MULTILINE)
# A cell the size of the code limit in small statements has about 300,000; the lesson's
# four functions about 300. Past this, reading would take seconds of the grader's time.
MAX_NODES_PER_CELL = 100_000
# Cells of any kind: nbformat's reading and validation take time in their number, and a
# notebook within the size limit could hold 600,000 empty ones (about 80 s to read).
MAX_CELLS = 5_000
# A cell this large is data pasted into code, not a definition: it is left out whole.
MAX_CELL_BYTES = 256 * 1024
TOO_LARGE_ADVICE = "too large to grade (keep data out of the code)"
TOO_LARGE_CELL = f"the cell holds more than {MAX_CELL_BYTES // 1024} KiB of code: {TOO_LARGE_ADVICE}"
# Tokenizing a cell to find where its statements start takes about 1 s per 150 KB; a
# larger cell with IPython lines in it has every line that looks like one left out.
MAX_TOKENIZED_CELL = 100_000
CODE_SHOWN = 80  # characters of a left-out line kept in the report
TOP_TO_BOTTOM = "Code cells were graded top to bottom, as Restart & Run All runs them, not in the order they last ran."
# A notebook that holds a kernel's input history (grader.kernel), one cell per run.
KERNEL_HISTORY = "kernel_history"
IN_THE_ORDER_RUN = (
    "The code the kernel has run was graded in the order it ran (cell N is In [N]): the latest definition of each function counts."
)


@dataclass(frozen=True)
class _Piece:
    """A kept statement: its lines in the module, each with the (cell, line) it came from,
    and why it is left out after all if nothing graded uses what it computes ("" never)."""

    statement: ast.stmt
    text: list[str]
    origin: list[tuple[int, int]]
    unless_used: str


def parse(content: bytes, name: str, assignment: Assignment, *, any_length: bool = False) -> Source:
    """The module of the notebook ``content``; :class:`Unusable` with one sentence that
    calls the file ``name``. ``any_length``: a notebook the grader wrote of a kernel's
    history, which holds as many cells as the kernel's latest definitions need."""
    notebook = _read(content, name, any_length)
    left_out: list[LeftOut] = []
    guessed: dict[str, LeftOut] = {}  # names defined in cells that are not Python at all, or too large
    cells = _code_cells(notebook, name, left_out, guessed)
    if not cells and left_out:
        raise Unusable(f"every code cell of {name} holds more than {MAX_CELL_BYTES // 1024} KiB of code: {TOO_LARGE_ADVICE}")
    if not cells:
        raise Unusable(f"{name} has no code cells: write {assignment.task} in code cells")
    selection = Selection(frozenset(assignment.function_names))
    pieces: list[_Piece] = []
    for number, text in cells:
        pieces += _cell_pieces(number, text, selection, left_out, guessed)
    unused = unused_values([(piece.statement, piece.unless_used) for piece in pieces])
    for index in sorted(unused):
        cell, line = pieces[index].origin[0]
        left_out.append(_left(cell, line, pieces[index].text[0], pieces[index].unless_used))
    pieces = [piece for index, piece in enumerate(pieces) if index not in unused]
    left_out.sort(key=lambda piece: (piece.cell, piece.line))
    code = PREAMBLE + "".join(line for piece in pieces for line in piece.text)
    at = {f"cell {piece.cell}, line {piece.line}": piece for piece in left_out}
    defined_only_in = {name: piece for name, piece in guessed.items() if name not in selection.bound}
    defined_only_in |= {name: at[where] for name, where in selection.lost.items() if where in at}
    source = Source(
        code.encode(),
        kind="notebook",
        lines=((0, 0), *(origin for piece in pieces for origin in piece.origin)),
        cells=tuple(sorted({cell for piece in pieces for cell, _ in piece.origin})),
        left_out=tuple(left_out),
        defined_only_in=defined_only_in,
        notes=(IN_THE_ORDER_RUN if _is_kernel_history(notebook) else TOP_TO_BOTTOM,),
        name=name,
    )
    _check_compiles(source)
    return source


def broken_json_reason(content: bytes, name: str) -> str:
    """The sentence for an .ipynb file whose JSON does not parse."""
    try:
        json.loads(json_text(content) or content)
    except json.JSONDecodeError as error:
        where = f" (line {error.lineno}, column {error.colno})"
    except Exception:  # not text, or nested past what the parser follows
        where = ""
    else:
        return f"{name} is not a Jupyter notebook: it holds JSON without notebook cells"
    return (
        f"{name} is not a readable notebook: its JSON is broken{where}. Was the file cut short? "
        "Save the notebook again and resubmit it"
    )


def _read(content: bytes, name: str, any_length: bool = False) -> Any:
    """The notebook as nbformat 4, or :class:`Unusable`. A notebook 4 that strays from the
    schema only by a missing ``metadata`` or ``outputs`` (as some tools write them) is read
    with those filled in."""
    text = json_text(content)
    if text is None:
        raise Unusable(f"{name} is not text in a Unicode encoding: save the notebook again")
    if not any_length:
        _refuse_too_many_cells(text, name)
    # nbformat logs schema problems to the traitlets logger and warns of missing cell ids;
    # the grader reports them as it sees fit, and prints nothing else (the instructor's
    # terminal, and a check process's stderr, are not the student's).
    logging.getLogger("traitlets").setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _read_text(text, content, name)


def _refuse_too_many_cells(text: str, name: str) -> None:
    if text.count('"cell_type"') <= MAX_CELLS:
        return  # every cell has one: no need to parse the JSON twice to count them
    try:
        document = json.loads(text)
    except Exception:  # broken JSON: nbformat says how
        return
    if not isinstance(document, dict):
        return
    sheets = document.get("worksheets")  # nbformat 3
    containers = [document, *(sheet for sheet in (sheets if isinstance(sheets, list) else []) if isinstance(sheet, dict))]
    count = sum(len(cells) for cells in (part.get("cells") for part in containers) if isinstance(cells, list))
    if count > MAX_CELLS:
        raise Unusable(f"{name} has {count} cells; a notebook may have at most {MAX_CELLS}: remove the empty ones")


def _read_text(text: str, content: bytes, name: str) -> Any:
    import nbformat  # about 0.2 s, paid only by runs that read a notebook

    try:
        return nbformat.reads(text, as_version=4, capture_validation_error={})
    except nbformat.reader.NotJSONError:
        raise Unusable(broken_json_reason(content, name)) from None
    except nbformat.NBFormatError:
        raise Unusable(
            f"{name} is in a notebook format this grader cannot read (it reads nbformat 1 to 4): "
            "save it again with Jupyter"
        ) from None
    except Exception as error:  # nbformat's own checks, in whatever form they fail
        completed = _completed(text)
        if completed is not None:
            try:
                return nbformat.reads(completed, as_version=4, capture_validation_error={})
            except Exception:
                pass
        raise Unusable(f"{name} is not a readable notebook ({type(error).__name__}): save it again") from None


def _completed(text: str) -> str | None:
    """A notebook 4 with the fields nbformat insists on filled in, or None."""
    try:
        document = json.loads(text)
    except Exception:
        return None
    if not isinstance(document, dict) or document.get("nbformat") != 4 or not isinstance(document.get("cells"), list):
        return None
    document.setdefault("metadata", {})
    document.setdefault("nbformat_minor", 4)
    for cell in document["cells"]:
        if isinstance(cell, dict):
            cell.setdefault("metadata", {})
            if cell.get("cell_type") == "code":
                cell.setdefault("outputs", [])
                cell.setdefault("execution_count", None)
    return json.dumps(document)


def kernel_history(cells: list[tuple[int, str]]) -> bytes:
    """A notebook of ``cells``, code a kernel ran (``(N, code)`` of In [N], in the order
    run), marked as such: it is read as any notebook, its cells are numbered as the
    kernel numbered them, and its report says in what order they were graded."""
    document = {
        "cells": [
            {"cell_type": "code", "id": f"in-{number}", "metadata": {}, "source": text, "outputs": [], "execution_count": number}
            for number, text in cells
        ],
        "metadata": {"attention_grader": {"source": KERNEL_HISTORY}, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document).encode()


def _is_kernel_history(notebook: Any) -> bool:
    metadata = notebook.get("metadata")
    marked = metadata.get("attention_grader") if isinstance(metadata, dict) else None
    return isinstance(marked, dict) and marked.get("source") == KERNEL_HISTORY


def _code_cells(
    notebook: Any, name: str, too_large: list[LeftOut], guessed: dict[str, LeftOut]
) -> list[tuple[int, str]]:
    """(number, source) of every code cell; numbers count every cell from 1, top down (a
    kernel's history: N of In [N]). A cell over MAX_CELL_BYTES is left out: it goes to
    ``too_large``, and what it seems to define to ``guessed``."""
    numbered_by_kernel = _is_kernel_history(notebook)
    metadata = notebook.get("metadata")
    language_info = metadata.get("language_info") if isinstance(metadata, dict) else None
    language = language_info.get("name") if isinstance(language_info, dict) else None
    if isinstance(language, str) and language.strip().lower() not in ("", "python", "python3"):
        shown = language.encode("ascii", "replace").decode()[:40]
        raise Unusable(f"{name} is a notebook in {shown}: the lesson's functions are written in Python")
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise Unusable(f"{name} is not a readable notebook: it has no list of cells")
    found, size = [], 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        if numbered_by_kernel and isinstance(cell.get("execution_count"), int):
            number = cell["execution_count"]
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if isinstance(source, str):
            source = source.removeprefix("\ufeff")
        if not isinstance(source, str):
            raise Unusable(f"cell {number} of {name} is not readable (its source is not text): save it again")
        try:
            cell_size = len(source.encode("utf-8"))
        except UnicodeEncodeError:
            raise Unusable(f"cell {number} of {name} holds text that is not valid Unicode: save it again") from None
        if cell_size > MAX_CELL_BYTES:
            # Pasted data, not code: left out (with a sentence), so it costs the rest nothing.
            piece = _left(number, 1, source.split("\n", 1)[0], TOO_LARGE_CELL)
            too_large.append(piece)
            _note_definitions(source, piece, guessed)
            continue
        size += cell_size
        if size > MAX_PYTHON_BYTES:
            raise Unusable(f"the code cells of {name} hold more than {MAX_PYTHON_BYTES} bytes of code")
        if source.strip():
            found.append((number, source.replace("\r\n", "\n").replace("\r", "\n")))
    return found


def as_ipython_reads(text: str) -> list[str]:
    """The cell's lines without ``>>>`` prompts and without an indent they all share, as
    IPython removes both before it runs a cell."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    if first.lstrip().startswith(">>>"):
        lines = [PROMPT.sub("", line.lstrip()) if PROMPT.match(line.lstrip()) else line for line in lines]
    return textwrap.dedent("\n".join(lines)).split("\n")


def _cell_pieces(
    number: int, text: str, selection: Selection, left_out: list[LeftOut], guessed: dict[str, LeftOut]
) -> list[_Piece]:
    lines = as_ipython_reads(text)
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return []  # nothing but a byte order mark or prompts
    if lines[first].startswith("%%"):
        magic, *arguments = lines[first][2:].split() or [""]
        module = _written_module(magic, arguments)
        if module:
            selection.written.add(module)
            reason = f"writes the cell to {module}.py: the grader reads its code as part of the notebook"
            left_out.append(_left(number, first + 1, lines[first], reason))
            lines[first] = ""
        elif magic not in PYTHON_CELL_MAGICS:
            piece = _left(number, first + 1, lines[first], f"the cell runs as %%{magic}, not as Python code of the notebook")
            left_out.append(piece)
            _note_definitions(text, piece, guessed)
            return []
        else:
            left_out.append(_left(number, first + 1, lines[first], "a notebook magic: the cell's code below it is graded"))
            lines[first] = ""
    tree = _parsed(lines)
    ipython_lines: list[tuple[LeftOut, list[str]]] = []
    if not isinstance(tree, ast.Module):
        without, found = _without_ipython_lines(number, lines)
        tree = _parsed(without)
        if isinstance(tree, ast.Module):
            lines, ipython_lines = without, found
    reason = None
    if not isinstance(tree, ast.Module):
        line, message = tree
        reason = f"the cell has a syntax error on line {line} ({message}), so none of it was graded"
    elif len(list(itertools.islice(ast.walk(tree), MAX_NODES_PER_CELL + 1))) > MAX_NODES_PER_CELL:
        line = 1
        reason = f"the cell holds more than {MAX_NODES_PER_CELL} pieces of syntax: too large to grade (keep data out of the code)"
    if reason is not None:
        line = min(max(line, 1), len(lines))
        piece = _left(number, line, lines[line - 1], reason)
        left_out.append(piece)
        _note_definitions(text, piece, guessed)
        return []
    for piece, assigned in ipython_lines:
        left_out.append(piece)
        selection.forget(assigned, f"cell {piece.cell}, line {piece.line}")
    pieces = []
    statements = tree.body
    for index, statement in enumerate(statements):
        for part, how in _parts(statement):
            start = _start_line(lines, part)
            decision = selection.decide(part, f"cell {number}, line {start}")
            if decision.kept:
                text = _piece_text(lines, part, start, statements, index, how)
                origin = [(number, start + offset) for offset in range(len(text))]
                pieces.append(_Piece(part, text, origin, decision.reason))
            elif decision.reason:
                left_out.append(_left(number, start, lines[start - 1], decision.reason))
    return pieces


def _written_module(magic: str, arguments: list[str]) -> str | None:
    """The module a ``%%writefile [-a] NAME.py`` cell writes, if it is one."""
    names = [argument for argument in arguments if not argument.startswith("-")]
    if magic in ("writefile", "file") and len(names) == 1 and re.fullmatch(r"[A-Za-z_]\w*\.py", names[0]):
        return names[0].removesuffix(".py")
    return None


def _parts(statement: ast.stmt) -> list[tuple[ast.stmt, str]]:
    """The statements to decide on, and how each is written into the module: "copied";
    "written" anew (``import numpy as np, matplotlib.pyplot as plt`` as one import per
    name, so that the ones the sandbox has are kept); or "dedented", the body of an ``if
    __name__ == "__main__":`` block, which runs in a notebook (where the name is
    "__main__") but would not in the module the grader imports."""
    if isinstance(statement, ast.Import) and len(statement.names) > 1:
        return [(ast.copy_location(ast.Import(names=[alias]), statement), "written") for alias in statement.names]
    if isinstance(statement, ast.If) and is_main_guard(statement.test) and not statement.orelse:
        return [(inner, "dedented") for block in [statement.body] for inner in block]
    return [(statement, "copied")]


def _parsed(lines: list[str]) -> ast.Module | tuple[int, str]:
    """The cell's tree, or the line and message of why it is not Python."""
    try:
        tree = ast.parse("\n".join(lines))
        compile(tree, "<cell>", "exec", dont_inherit=True)  # 'return' outside a function, and the like
        return tree
    except SyntaxError as error:
        return error.lineno or 1, error.msg
    except (RecursionError, MemoryError, ValueError):
        return 1, "too deeply nested"


def _without_ipython_lines(number: int, lines: list[str]) -> tuple[list[str], list[tuple[LeftOut, list[str]]]]:
    """The cell with its IPython lines replaced by ``pass`` at their indentation, and those
    lines (each with the names it would have assigned: ``files = !ls``). Only a line that
    starts a statement counts, as in IPython: one inside brackets or a string stays."""
    candidates = {index: match for index, line in enumerate(lines) if (match := IPYTHON_LINE.match(line))}
    starts = None
    if sum(map(len, lines)) <= MAX_TOKENIZED_CELL:
        starts = _statement_starts([_tokenizable(line) if index in candidates else line for index, line in enumerate(lines)])
    lines = list(lines)
    found = []
    for index, match in sorted(candidates.items()):
        if starts is not None and index not in starts:
            continue
        lines[index] = _as_pass(lines[index])
        assigned = [name.strip() for name in (match.group("assigned") or "").split(",")]
        found.append((_left(number, index + 1, match.string, _ipython_reason(match.string)), [n for n in assigned if n]))
    return lines, found


def _statement_starts(lines: list[str]) -> set[int] | None:
    """The lines (from 0) on which a statement starts, from Python's tokenizer: not those
    inside brackets, strings or after a backslash. None when the cell does not tokenize
    (then every IPython-looking line counts)."""
    starts, at_start, depth = set(), True, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines)).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(depth - 1, 0)
            if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
                at_start = True
            elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT) and at_start:
                starts.add(token.start[0] - 1)
                at_start = False
    except (tokenize.TokenError, SyntaxError):
        return None
    return starts


def _tokenizable(line: str) -> str:
    """The line with IPython's own characters (a leading ``!``/``%``/``?``, a trailing
    ``?``, ``= !``) blanked, and its brackets and strings as they were."""
    line = re.sub(r"^(\s*)([!%?]+)", lambda match: match.group(1) + " " * len(match.group(2)), line)
    line = re.sub(r"\?+(\s*)$", r"\1", line)
    return re.sub(r"^([\w\s,]*=\s*)[!%]", r"\1 ", line)


def _as_pass(line: str) -> str:
    return line[: len(line) - len(line.lstrip())] + "pass"


def _ipython_reason(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("!") or re.match(r"^[\w\s,]+=\s*!", stripped):
        return "a shell command: the grader runs Python only"
    if stripped.startswith("?") or stripped.endswith("?"):
        return "asks for help: nothing to grade"
    return "a notebook magic: the grader runs Python only"


def _start_line(lines: list[str], statement: ast.stmt) -> int:
    """The first line of ``statement``, its decorators' ``@`` included."""
    decorators = getattr(statement, "decorator_list", None)
    if not decorators:
        return statement.lineno
    line = decorators[0].lineno
    while line > 1 and not lines[line - 1].lstrip().startswith("@"):
        line -= 1  # a parenthesised decorator starts on a line after its @
    return line


def _piece_text(
    lines: list[str], statement: ast.stmt, start: int, statements: list[ast.stmt], index: int, how: str
) -> list[str]:
    """The statement's own lines, cut where another statement shares them (or a trailing
    backslash would join it to the next piece)."""
    if how == "written":
        return [ast.unparse(statement) + "\n"]
    end = statement.end_lineno or start
    shares_start = how == "copied" and index > 0 and (statements[index - 1].end_lineno or 0) >= start
    first_column = statement.col_offset if shares_start or how == "dedented" else 0
    text = lines[start - 1 : end]
    last = len(text) - 1
    text[last] = _byte_slice(text[last], 0, statement.end_col_offset)
    text[0] = _byte_slice(text[0], first_column, None)
    if how == "dedented":  # the block's indent off every line after the first too
        indent = statement.col_offset
        text[1:] = [line[indent:] if line[:indent].isspace() else line.lstrip() for line in text[1:]]
    return [line + "\n" for line in text]


def _byte_slice(line: str, start: int | None, end: int | None) -> str:
    """ast counts columns in UTF-8 bytes."""
    return line.encode()[start:end].decode(errors="replace")


def _left(number: int, line: int, code: str, reason: str) -> LeftOut:
    code = code.strip()
    shown = code if len(code) <= CODE_SHOWN else code[: CODE_SHOWN - 3] + "..."
    return LeftOut(number, line, shown, reason)


def _note_definitions(text: str, piece: LeftOut, guessed: dict[str, LeftOut]) -> None:
    """The names a cell left out whole (not Python, or not parsed) seems to define."""
    for match in DEFINED.finditer(text):
        guessed[match.group(1) or match.group(2)] = piece


def _check_compiles(source: Source) -> None:
    try:
        compile(source.code, "attention.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        where = source.where(error.lineno) if error.lineno else source.name
        raise Unusable(f"{source.name}'s code does not compile when put together ({where}: {error.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise Unusable(f"{source.name}'s code is too deeply nested to compile") from None
