"""A Python file as a submission: its bytes are the module, once they are known to be text."""

from __future__ import annotations

import io
import tokenize

from grader.sources import Source, Unusable


def parse(content: bytes, *, name: str, task: str) -> Source:
    """The module of a Python file; :class:`Unusable` for one that is empty or not text
    (``task`` says what the file should hold: "the four functions from the lesson")."""
    reason = unusable_reason(content, name, task)
    if reason is not None:
        raise Unusable(reason)
    return Source(content, name=name)


def unusable_reason(content: bytes, name: str, task: str) -> str | None:
    """A sentence for bytes that cannot be a Python module at all, else None."""
    if not content.strip():
        return f"{name} is empty: write {task} in it"
    return encoding_problem(content, name)


def encoding_problem(content: bytes, name: str) -> str | None:
    """Decide text encoding here, as PEP 263 says, rather than leave it to the import machinery,
    which accepts some undecodable bytes on some Python versions: the grade must not depend
    on the Python that runs the worker."""
    if b"\x00" in content:
        return f"{name} is not a text file (it contains NUL bytes): submit your Python source file"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    except SyntaxError:
        return f"{name} does not start as UTF-8 text and declares no known encoding: save it as UTF-8"
    try:
        content.decode(encoding)
    except UnicodeDecodeError as error:
        line = content[: error.start].count(b"\n") + 1
        return (
            f"{name} is not valid {encoding} text (byte {content[error.start]:#04x} on line {line}): "
            "save it as UTF-8, or declare its encoding in a '# -*- coding: ... -*-' first line"
        )
    return None
