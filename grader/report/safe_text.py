"""Text a submission controls, made safe to write into any output.

A student controls their file's name (an id, a path) and every message their code
raises, so any of these may hold what a reader would act on instead of showing: a
terminal's escape sequences (clear the screen, set the window title, write the
clipboard), a carriage return that overwrites a line with a fake ``PASS``, a line break
that ends a CSV row, a right-to-left override, or a lone surrogate (a file name that is
not UTF-8, an exception message), which strict UTF-8 cannot even encode.

:func:`shown` turns each character Python calls unprintable into the escape Python would
write for it (``\\x1b``, ``\\r``, ``\\u202e``; a byte of a non-UTF-8 name as ``\\xe9``), so it
reads as text everywhere and nothing else changes (letters of every script, symbols and
emoji stay as they are). Each kind of output applies it in its one
place: :func:`json_text` for every JSON file, the terminal and text report
(grader.cli, grader.report), the HTML pages' escape (grader.report.pages), Markdown's
(grader.report.formats.markdown), JUnit's (grader.report.formats.junit) and the CSV gradebooks' cell
(grader.report.formats.gradebook).
"""

from __future__ import annotations

import json
from typing import Any

_KEPT_IN_TEXT = "\t\n"
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# os.fsdecode maps each byte of a name that is not UTF-8 to U+DC80..U+DCFF.
_ESCAPED_BYTES = range(0xDC80, 0xDD00)


def _escape(character: str) -> str:
    code = ord(character)
    if character in _NAMED:
        return _NAMED[character]
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with every character Python calls unprintable (controls, formatting and
    bidirectional marks, separators but the space, surrogates, unassigned code points)
    written as its escape; tabs and line breaks stay. Idempotent: what it writes holds
    nothing it would escape."""
    return _escaped(text, _KEPT_IN_TEXT)


def one_line(text: str) -> str:
    """:func:`shown`, with tabs and line breaks escaped too: for ids and paths, which are
    one line in every output."""
    return _escaped(text, "")


def _escaped(text: str, kept: str) -> str:
    if text.translate({ord(character): None for character in kept}).isprintable():
        return text  # the common case, at C speed
    return "".join(c if c.isprintable() or c in kept else _escape(c) for c in text)


def shown_everywhere(value: Any) -> Any:
    """``value`` (JSON-like data) with :func:`shown` applied to every string in it, keys included."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown_everywhere(key): shown_everywhere(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown_everywhere(item) for item in value]
    return value


def json_text(value: Any, **options: Any) -> str:
    """``value`` as strict JSON (no nan, no lone surrogate, no control character in any
    string): what every JSON file the grader writes holds."""
    return json.dumps(shown_everywhere(value), allow_nan=False, **options)
