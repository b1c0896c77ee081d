"""What an unfinished function does, in words: a stub is told it is a stub, never a mistake.

Students grade their file most while it is half written: some functions finished, others
still ``pass``, ``raise NotImplementedError``, or a placeholder that returns zeros, its
input or the same value whatever it is given. No mistake of the catalogue is true of such a
function (it has not tried yet), so :func:`described` says what its answers show, in one
sentence, and the diagnosis reads nothing more of it. An assignment adds placeholders of
its own lesson (uniform weights, say) through ``Mistakes.placeholders``.

Each sentence is said only when the reference's own answers to the same probes do not
have that property, so a function right by its lesson is never told it. A stub that still
follows its input (its input unchanged, ``np.exp(x)``) can stand in for its helper when the
functions that call it are read; one that does not (None, zeros, a constant) cannot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

RAISED = "raised"
NOT_IMPLEMENTED = "NotImplementedError"
# What an Answer's ``raised`` holds when the file does not define the function at all: no
# exception's name, so no student's exception is ever read as one.
NOT_DEFINED = "(not defined)"


@dataclass(frozen=True)
class Stub:
    """What an unfinished function does, in a sentence, and whether its answers still follow
    its input (then the functions that call it can be read over it).

    :func:`described` makes the generic ones; an assignment returns its own from a
    placeholder (:attr:`Mistakes.placeholders <grader.diagnoses.Mistakes.placeholders>`)
    for an unfinished function of its lesson's kind. Once a function is found unfinished,
    its sentence is told (as ``"id": "unfinished"``, which names no mistake) and nothing
    else of it is read.

    Fields:

    sentence
        What the student reads: what the function returns, as a question, never a mistake
        (it has not tried yet), with what is left to write. Required. Example:
        ``"layer_norm returns X - mean, not yet divided by np.sqrt(var + eps): is it finished?"``.
    follows_input
        Whether its answers still follow its input (``X - mean``, its input unchanged),
        default ``False``. True: it stands :data:`~grader.diagnoses.WRONG`, and the
        inference of a function that calls it is told its helpers are wrong (it may read
        that function over the student's helper). False (None, zeros, a constant): it
        stands :data:`~grader.diagnoses.UNREADABLE`, and that inference is told its helpers
        are unreadable (the shipped ones then read only the calling function's own code).
        Either way, a mistake that ``builds_on`` it is not tested. Example:
        ``follows_input=True`` for ``X - mean`` not yet divided.
    kind
        What it does, in a word, default ``""``; other stubs' ``comes_from`` name it. The
        generic kinds are ``"not_defined"``, ``"not_implemented"``, ``"none"``, ``"none_part"``, ``"zeros"``,
        ``"input"`` and ``"constant"``. Example: ``kind="centred"``.
    comes_from
        The kinds of stub that, among the functions this one builds on
        (:attr:`~grader.diagnoses.Mistakes.helpers`, and theirs), could make it answer as
        it does even if its own code were finished: where one of them is a stub of such a
        kind, this sentence is not said (zeros from a zeros helper are not this function's
        own). Default ``frozenset()``: said whatever the helpers are. Example:
        ``comes_from=frozenset({"zeros"})`` for a function that returns only zeros, as it
        does over a helper that returns zeros.

    Example::

        Stub("layer_norm returns X - mean, not yet divided by np.sqrt(var + eps): is it finished?",
             follows_input=True, kind="centred")
    """

    sentence: str
    follows_input: bool = False
    # What it does, in a word ("zeros", "uniform"), and the kinds of stub below it that could
    # make a function calling them do the same: zeros from zeros, uniform weights from uniform
    # weights. Its sentence is not said where such a stub below may be all it passes on (a
    # mistaken function over a zeros helper returns zeros too); None, or a raise of its own,
    # come from no stub below.
    kind: str = ""
    comes_from: frozenset[str] = frozenset()

    def may_come_from(self, kinds_below: set[str]) -> bool:
        """Whether a stub of one of ``kinds_below`` (the kinds of the stubs among the functions
        this one builds on) may be all it passes on (see :attr:`comes_from`)."""
        return bool(self.comes_from & kinds_below)


def described(
    function: str, parameters: Sequence[str], args: Sequence[tuple[Any, ...]], answers: Sequence[Any], reference: Sequence[Any]
) -> Stub | None:
    """What ``function`` does when its ``answers`` (``Answer``s) to the calls with ``args``
    show it unfinished, else None; ``reference`` holds the reference's values."""
    if answers and all(answer.raised == NOT_DEFINED for answer in answers):
        text = answers[0].text
        # Where the file says nothing of the name, it may be written under another.
        plainly = " (the grader calls each function by the handout's name)" if text.endswith("()") else ""
        return Stub(f"{function} is missing: {text}{plainly}.", kind="not_defined")
    if all(answer.raised == NOT_IMPLEMENTED for answer in answers):
        return Stub(f"{function} raises NotImplementedError on every call: it is not finished yet.", kind="not_implemented")
    values = [answer.value for answer in answers]
    if all(value is None for value in values):
        return Stub(
            f"{function} returns None: is it written yet? A function that ends without a return "
            "statement (or holds only pass or ...) returns None.",
            kind="none",
        )
    if all(isinstance(value, tuple) and any(part is None for part in value) for value in values):
        return Stub(
            f"{function} returns None as part of its answer: is it finished? Every value it returns must be an array.",
            kind="none_part",
            comes_from=frozenset({"none", "none_part"}),
        )
    answered = [(given, value) for given, value in zip(args, values) if not _raised(value)]
    if not answered:
        return None
    if all(_all_zero(value) for _, value in answered) and not all(_all_zero(value) for value in reference):
        return Stub(
            f"{function} returns only zeros (or False), whatever its input: is it still a placeholder?",
            kind="zeros",
            comes_from=frozenset({"zeros"}),
        )
    returned = _arguments_returned(answered, parameters)
    if returned:
        return Stub(
            f"{function} returns its input {returned} unchanged: is it written yet?",
            follows_input=True,
            kind="input",
            comes_from=frozenset({"input"}),
        )
    constant = answered[0][1]
    if (
        len(answered) > 1 and all(_identical(value, constant) for _, value in answered)
        and not all(_identical(value, reference[0]) for value in reference)
        # The answer to one input, written down, is not a placeholder: the assignment may name it.
        and not any(_roughly(constant, value) for value in reference)
    ):
        return Stub(
            f"{function} returns the same answer whatever its input: is it still a placeholder?",
            kind="constant",
            comes_from=frozenset({"constant", "zeros"}),
        )
    return None


def _raised(value: Any) -> bool:
    return isinstance(value, str) and value == RAISED


def _arrays(value: Any) -> list[np.ndarray] | None:
    """The arrays an answer holds (a tuple's parts), or None if a part is no number or array of numbers."""
    parts = value if isinstance(value, tuple) else (value,)
    arrays = []
    for part in parts:
        if not isinstance(part, (np.ndarray, np.generic, int, float)):
            return None
        part = np.asarray(part)
        if part.dtype.kind not in "biuf":
            return None
        arrays.append(part)
    return arrays


def _all_zero(value: Any) -> bool:
    arrays = _arrays(value)
    return arrays is not None and all(array.size > 0 and not np.any(array) for array in arrays)


def _arguments_returned(answered: list[tuple[tuple[Any, ...], Any]], parameters: Sequence[str]) -> str | None:
    """The names of the arguments every answer is, part for part, unchanged (``"(Q, K)"``),
    if there are such names (an argument may equal another on one call: each part keeps
    the names it matches on every call)."""
    names: list[set[str]] | None = None
    for args, value in answered:
        parts = value if isinstance(value, tuple) else (value,)
        matching = [{name for name, arg in zip(parameters, args) if _identical(part, arg)} for part in parts]
        names = matching if names is None else [a & b for a, b in zip(names, matching)] if len(names) == len(matching) else []
    if not names or not all(names):
        return None
    chosen = [next(name for name in parameters if name in found) for found in names]
    return chosen[0] if len(chosen) == 1 else f"({', '.join(chosen)})"


def _roughly(a: Any, b: Any) -> bool:
    """The same arrays to two decimals (as an answer copied from a printout is)."""
    arrays_a, arrays_b = _arrays(a), _arrays(b)
    if arrays_a is None or arrays_b is None or len(arrays_a) != len(arrays_b):
        return False
    return all(x.shape == y.shape and bool(np.allclose(x, y, atol=1e-2)) for x, y in zip(arrays_a, arrays_b))


def _identical(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(_identical, a, b))
    arrays_a, arrays_b = _arrays(a), _arrays(b)
    if arrays_a is None or arrays_b is None:
        return False
    (x,), (y,) = arrays_a, arrays_b
    return x.shape == y.shape and x.dtype.kind == y.dtype.kind and bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
