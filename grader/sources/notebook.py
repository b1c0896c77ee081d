"""A Jupyter notebook as a submission: its code cells, top to bottom, as one module.

nbformat reads the file (it knows every format version, converts nbformat 3's
worksheets, and validates against the format's schema); outputs are never read. The
cells are taken in the order they stand, as "Restart & Run All" runs them: the order a
student last ran them in is not in the file. Within each code cell:

- a cell magic (``%%time``, ``%%capture``, ``%%timeit``) whose body is Python keeps its
  body; any other (``%%bash``, ``%%writefile``, ...) leaves the cell out;
- a cell that is not Python as it stands has its IPython lines (``%matplotlib inline``,
  ``!pip install``, ``files = !ls``, ``np.sum?``) left out, each replaced by ``pass``
  so the lines around it keep their numbers; one that still does not parse is left out
  whole, with its syntax error;
- its top-level statements are kept or left out as :mod:`grader.sources.selection` says.

The module starts with ``from __future__ import annotations``, so an annotation naming
a package the sandbox lacks (``torch.Tensor``) never stops a definition.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from dataclasses import dataclass

from grader.sources import MAX_PYTHON_BYTES, LeftOut, Source, Unusable
from grader.sources.selection import Selection

PREAMBLE = "from __future__ import annotations\n"
# Cell magics that run their body as Python.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "memit", "debug"})
# A line IPython reads as its own: a magic, a shell command, a help lookup, or a name
# assigned from a magic or a shell command.
IPYTHON_LINE = re.compile(r"^\s*(?:[!%?]|[\w.]+\?\??\s*$|(?P<assigned>[A-Za-z_][\w\s,]*?)\s*=\s*[!%])")
DEFINED = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*=[^=]", re.MULTILINE)
CODE_SHOWN = 80  # characters of a left-out line kept in the report


@dataclass(frozen=True)
class _Piece:
    """Lines of the module, each with the (cell, line) it came from."""

    text: list[str]
    origin: list[tuple[int, int]]


def parse(content: bytes) -> Source:
    """The module of the notebook ``content``; :class:`Unusable` with one sentence."""
    cells = _code_cells(_read(content))
    if not cells:
        raise Unusable("attention.ipynb has no code cells: write the four functions from the lesson in code cells")
    selection = Selection()
    left_out: list[LeftOut] = []
    pieces: list[_Piece] = []
    guessed: dict[str, LeftOut] = {}  # names defined in cells that are not Python at all
    for number, text in cells:
        pieces += _cell_pieces(number, text, selection, left_out, guessed)
    code = PREAMBLE + "".join(line for piece in pieces for line in piece.text)
    lines = ((0, 0), *(origin for piece in pieces for origin in piece.origin))
    if len(code.encode()) > MAX_PYTHON_BYTES:
        raise Unusable(f"the code cells of attention.ipynb hold more than {MAX_PYTHON_BYTES} bytes of code")
    at = {f"cell {piece.cell}, line {piece.line}": piece for piece in left_out}
    defined_only_in = {name: piece for name, piece in guessed.items() if name not in selection.bound}
    defined_only_in |= {name: at[where] for name, where in selection.lost.items() if where in at}
    source = Source(
        code.encode(),
        kind="notebook",
        lines=lines,
        cells=tuple(sorted({cell for piece in pieces for cell, _ in piece.origin})),
        left_out=tuple(left_out),
        defined_only_in=defined_only_in,
        notes=("Code cells were graded top to bottom, as Restart & Run All runs them, "
               "not in the order they last ran.",),
    )
    _check_compiles(source)
    return source


def broken_json_reason(content: bytes) -> str:
    """The sentence for an .ipynb file whose JSON does not parse."""
    try:
        json.loads(content)
    except ValueError as error:
        where = f" (line {error.lineno}, column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
        return (
            f"attention.ipynb is not a readable notebook: its JSON is broken{where}. Was the file cut short? "
            "Save the notebook again and resubmit it"
        )
    return "attention.ipynb is not a Jupyter notebook: it holds JSON without notebook cells"


def _read(content: bytes):
    """The notebook as nbformat 4, or :class:`Unusable`. A notebook that strays from the
    schema in ways that leave its cells readable (a missing metadata field) is graded."""
    import nbformat  # about 0.2 s, paid only by runs that read a notebook

    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise Unusable(f"attention.ipynb is not UTF-8 text (byte {error.start}): save the notebook again") from None
    logging.getLogger("traitlets").setLevel(logging.CRITICAL)  # nbformat logs schema problems there
    try:
        return nbformat.reads(text, as_version=4, capture_validation_error={})
    except nbformat.reader.NotJSONError:
        raise Unusable(broken_json_reason(content)) from None
    except nbformat.NBFormatError:
        raise Unusable(
            "attention.ipynb is in a notebook format this grader cannot read (it reads nbformat 1 to 4): "
            "save it again with Jupyter"
        ) from None
    except (nbformat.ValidationError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
        raise Unusable(f"attention.ipynb is not a readable notebook ({type(error).__name__}): save it again") from None


def _code_cells(notebook) -> list[tuple[int, str]]:
    """(number, source) of every code cell; numbers count every cell from 1, top down."""
    metadata = notebook.get("metadata")
    language_info = metadata.get("language_info") if isinstance(metadata, dict) else None
    language = str(language_info.get("name") or "python") if isinstance(language_info, dict) else "python"
    if language.lower() != "python":
        raise Unusable(f"attention.ipynb is a notebook in {language}: the lesson's functions are written in Python")
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise Unusable("attention.ipynb is not a readable notebook: it has no list of cells")
    found = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        if isinstance(text, str) and text.strip():
            found.append((number, text.replace("\r\n", "\n").replace("\r", "\n")))
    return found


def _cell_pieces(
    number: int, text: str, selection: Selection, left_out: list[LeftOut], guessed: dict[str, LeftOut]
) -> list[_Piece]:
    lines = text.split("\n")
    first = next(index for index, line in enumerate(lines) if line.strip())
    if lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
        if magic not in PYTHON_CELL_MAGICS:
            piece = _left(number, first + 1, lines[first], f"the cell runs as %%{magic}, not as Python")
            left_out.append(piece)
            _note_definitions(text, piece, guessed)
            return []
        left_out.append(_left(number, first + 1, lines[first], "a notebook magic: the cell's code below it is graded"))
        lines[first] = ""
    tree = _parsed("\n".join(lines))
    if not isinstance(tree, ast.Module):
        # Not Python as it stands: try again without its IPython lines.
        without, ipython_lines = _without_ipython_lines(number, lines)
        retried = _parsed("\n".join(without))
        if isinstance(retried, ast.Module):
            tree, lines = retried, without
            for piece, assigned in ipython_lines:
                left_out.append(piece)
                selection.forget(assigned, f"cell {piece.cell}, line {piece.line}")
    if not isinstance(tree, ast.Module):
        line, message = tree
        line = min(max(line, 1), len(lines))
        piece = _left(number, line, lines[line - 1], f"the cell has a syntax error on line {line} ({message}), so none of it was graded")
        left_out.append(piece)
        _note_definitions(text, piece, guessed)
        return []
    pieces = []
    statements = tree.body
    for index, statement in enumerate(statements):
        start = statement.decorator_list[0].lineno if getattr(statement, "decorator_list", None) else statement.lineno
        reason = selection.decide(statement, f"cell {number}, line {start}")
        if reason is None:
            pieces.append(_piece(number, lines, statement, start, statements, index))
        elif reason:
            left_out.append(_left(number, start, lines[start - 1], reason))
    return pieces


def _parsed(text: str) -> ast.Module | tuple[int, str]:
    """The cell's tree, or the line and message of why it is not Python."""
    try:
        tree = ast.parse(text)
        compile(tree, "<cell>", "exec", dont_inherit=True)  # 'return' outside a function, and the like
        return tree
    except SyntaxError as error:
        return error.lineno or 1, error.msg
    except (RecursionError, MemoryError, ValueError):
        return 1, "too deeply nested, or not text"


def _without_ipython_lines(number: int, lines: list[str]) -> tuple[list[str], list[tuple[LeftOut, list[str]]]]:
    """The cell with each IPython line replaced by ``pass`` at its indentation, and those
    lines (each with the names it would have assigned: ``files = !ls``)."""
    kept, found = [], []
    for index, line in enumerate(lines):
        match = IPYTHON_LINE.match(line)
        if match:
            assigned = [name.strip() for name in (match.group("assigned") or "").split(",") if name.strip()]
            found.append((_left(number, index + 1, line, _ipython_reason(line)), assigned))
            line = line[: len(line) - len(line.lstrip())] + "pass"
        kept.append(line)
    return kept, found


def _ipython_reason(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("!") or re.match(r"^[\w\s,]+=\s*!", stripped):
        return "a shell command: the grader runs Python only"
    if stripped.startswith("?") or stripped.endswith("?"):
        return "asks for help: nothing to grade"
    return "a notebook magic: the grader runs Python only"


def _piece(number: int, lines: list[str], statement: ast.stmt, start: int, statements: list[ast.stmt], index: int) -> _Piece:
    """The statement's own text, whole lines where it has them to itself."""
    end = statement.end_lineno or start
    shares_start = index > 0 and (statements[index - 1].end_lineno or 0) >= start
    shares_end = index + 1 < len(statements) and statements[index + 1].lineno <= end
    text = lines[start - 1 : end]
    if shares_end:
        text[-1] = _byte_slice(text[-1], 0, statement.end_col_offset)
    if shares_start:
        text[0] = _byte_slice(text[0], statement.col_offset, None)
    return _Piece([line + "\n" for line in text], [(number, start + offset) for offset in range(len(text))])


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
        where = source.where(error.lineno) if error.lineno else "attention.ipynb"
        raise Unusable(f"attention.ipynb's code does not compile when put together ({where}: {error.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise Unusable("attention.ipynb's code is too deeply nested to compile") from None
