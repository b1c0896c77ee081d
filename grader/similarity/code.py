"""The code signal: fingerprints of what students wrote themselves, shared between two files.

Each file is tokenized and normalised the way MOSS and Dolos normalise: identifiers
become ``V`` (but attribute names stay, ``np.tril`` is not ``np.triu``), numbers ``N``,
strings ``S``; comments and layout are dropped. Every k-gram of tokens within one
top-level statement is hashed, and winnowing keeps the smallest hash of each window, with
the lines it covers. Fingerprints of the lesson's code, the template and the reference
count for nothing, nor those more than half of the class shares; two files' score is
that of grader.similarity.rarity: 1 when one file's own code is all in the other.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
import zlib
from collections import defaultdict
from dataclasses import dataclass

from grader.similarity.rarity import Shared, shared_rare

K = 12  # tokens per k-gram: about one line of NumPy
WINDOW = 6  # k-grams per winnowing window: a match of K + WINDOW - 1 tokens is always seen
MIN_SHARED = 4  # fingerprints two files must share before their code counts as shared
# A file's own code counts as at least this many fingerprints (about 6 lines): a file
# that adds a line or two to the lesson shares them with nobody in particular.
MIN_OWN = 20
COMMON_SHARE = 0.5  # a fingerprint more of the class than this shares is no signal

_TOKEN = re.compile(
    r"""(?P<string>(?:[rRbBuUfF]{0,2})(?:\'\'\'[\s\S]*?\'\'\'|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?j?)"
    r"|(?P<space>\s+)"
    r"|(?P<op>\*\*=?|//=?|>>=?|<<=?|->|:=|[-+*/%@&|^=<>!]=|[-+*/%@&|^~<>()\[\]{},:;.=])"
    r"|(?P<other>.)"
)
# Written at the start of a line, these close a bracket rather than begin a statement.
_CLOSING = frozenset(")]}")


@dataclass(frozen=True)
class Fingerprints:
    """One file's fingerprints: hash -> the (first, last) line ranges it covers there."""

    lines: dict[int, list[tuple[int, int]]]


def tokens(code: str) -> list[list[tuple[str, int]]]:
    """Normalised tokens of ``code`` with their lines, in units: one per top-level
    statement (a whole function, an import, an assignment). k-grams stay inside a unit,
    so that two files that put the lesson's functions in the same other order share
    nothing for it (only the order would be shared). A regular expression rather than
    Python's tokenizer, which is five times slower: a batch of thousands pays for this."""
    units: list[list[tuple[str, int]]] = [[]]
    line = 1
    previous = ""
    column_zero = True
    for match in _TOKEN.finditer(code):
        kind, text = match.lastgroup, match.group()
        if column_zero and kind not in {"space", "comment"} and text not in _CLOSING and units[-1]:
            units.append([])
        if kind == "name":
            units[-1].append((text if keyword.iskeyword(text) or previous == "." else "V", line))
        elif kind == "number":
            units[-1].append(("N", line))
        elif kind == "string":
            units[-1].append(("S", line))
        elif kind == "op":
            units[-1].append((text, line))
        if kind != "space" and kind != "comment":
            previous = text
        column_zero = text.endswith("\n") if kind == "space" else kind == "comment" and column_zero
        line += text.count("\n")
    return units


def fingerprints(code: str) -> Fingerprints:
    """Winnowed k-gram hashes of ``code`` (Schleimer, Wilkerson and Aiken 2003): in each
    window of WINDOW consecutive k-grams, the smallest hash (the rightmost, on ties). A
    unit (see :func:`tokens`) shorter than K tokens is one k-gram."""
    # Hashes of ints and tuples of ints are the same in every process (a str's is not).
    grams: list[tuple[int, int, int]] = []
    for unit in tokens(code):
        ids = [_token_id(text) for text, _ in unit]
        for start in range(max(len(ids) - K + 1, 1 if ids else 0)):
            grams.append((hash(tuple(ids[start : start + K])), unit[start][1], unit[min(start + K, len(unit)) - 1][1]))
    lines: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for position in _winnowed([value for value, _, _ in grams]):
        lines[grams[position][0]].append(grams[position][1:])
    return Fingerprints(dict(lines))


def _winnowed(values: list[int]) -> list[int]:
    """The positions winnowing keeps: of each window of WINDOW values (or of all, if
    fewer), the rightmost smallest, each once. In NumPy, imported here so that the
    command starts without it when --similarity is not asked for."""
    import numpy as np

    if not values:
        return []
    array = np.array(values, dtype=np.int64)
    width = min(WINDOW, len(array))
    windows = np.lib.stride_tricks.sliding_window_view(array, width)[:, ::-1]
    positions = np.arange(len(windows)) + width - 1 - np.argmin(windows, axis=1)
    # The rightmost smallest never moves left as the window slides: repeats are adjacent.
    return np.unique(positions).tolist()


@functools.cache
def _token_id(text: str) -> int:
    return zlib.crc32(text.encode())


def boilerplate(shared_code: list[str]) -> set[int]:
    """The fingerprints of code every student is given (the lesson, template, reference),
    as given and as a formatter rewrites it (``ast.unparse``: parentheses it does not
    need dropped, quotes and spacing its own), so that two students who both ran one on
    the lesson's code share nothing for it."""
    rewritten = [ast.unparse(ast.parse(code)) for code in shared_code]
    return {value for code in shared_code + rewritten for value in fingerprints(code).lines}


def code_matches(files: dict[str, Fingerprints], given: set[int]) -> Shared:
    """The score of every pair of ``files`` (id -> fingerprints) sharing at least
    MIN_SHARED fingerprints that are neither ``given`` nor common
    (grader.similarity.rarity), and the fingerprints a pair shares (see :func:`fragments`)."""
    holdings = {student: [value for value in found.lines if value not in given] for student, found in files.items()}
    return shared_rare(holdings, COMMON_SHARE, minimum=MIN_SHARED, floor=MIN_OWN)


def fragments(a: Fingerprints, b: Fingerprints, values: list[int]) -> list[dict[str, list[int]]]:
    """The shared fingerprints' line ranges in each file, in ``a``'s order, merged into
    one fragment wherever they run on in both files (of a fingerprint ``b`` has in several
    places, the one that continues the fragment). A lone fingerprint away from every
    other (a common line met again elsewhere) is no fragment, unless it is all there is."""
    merged: list[tuple[list[int], list[int], int]] = []
    for (a_first, a_last), value in sorted((a.lines[value][0], value) for value in values):
        options = b.lines[value]
        if merged:
            a_range, b_range, count = merged[-1]
            following = [option for option in options if b_range[0] - 1 <= option[0] <= b_range[1] + 1]
            if a_first <= a_range[1] + 1 and following:
                merged[-1] = ([a_range[0], max(a_range[1], a_last)], [b_range[0], max(b_range[1], following[0][1])], count + 1)
                continue
        merged.append(([a_first, a_last], list(options[0]), 1))
    kept = [(a_range, b_range) for a_range, b_range, count in merged if count > 1]
    return [{"a": a_range, "b": b_range} for a_range, b_range in kept or [(m[0], m[1]) for m in merged]]
