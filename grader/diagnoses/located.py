"""The sentence a wrong function gets when no known mistake and no step explains it.

Every function whose checks fail is told something: a named mistake, an inferred step, that
it is unfinished, or, failing all of those, this sentence. It locates the fault from the
function's own answers to the diagnosis's probes: the first call it answers differently from
the lesson's code, the first value that differs, and what it is against what the lesson's
code gives. Where the answers prove more than the place, it says so too, and only then:

- **nan turned into 0**: on every call that differs, entries the lesson gives as nan are 0
  (in one part of the answer at least), and every other entry is the lesson's;
- **an answer kept from an earlier call**: a call is answered with exactly the right answer
  of an earlier call with other inputs of the same shapes, and a new input of those shapes
  gets that answer again, where the lesson's code answers otherwise (a function that merely
  ignores an input, a mask say, answers the new input anew).

A function right on every probe whose checks still fail is told that, and pointed to those
checks' reproductions, which show the input it gets wrong.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

RAISED = "raised"  # as grader.diagnoses.RAISED: this module does not import the package


def sentence(
    function: str,
    parameters: Sequence[str],
    probes: Sequence[Any],
    got: Sequence[Any],
    expected: Sequence[Any],
    differs: Sequence[bool],
    lesson: str = "the lesson's code",
    helpers: Sequence[str] = (),
) -> str | None:
    """What ``function`` does wrong, located on its first differing probe; None if none differs.

    ``probes``: the function's probes (:class:`~grader.diagnoses.Probe`); ``got`` and
    ``expected``: the student's answers and those it is held to (:class:`~grader.diagnoses.Answer`),
    which ``lesson`` names: the lesson's code, or the lesson's function over the student's own
    helpers, so that what differs is the function's own doing; ``differs``: which answers the
    diagnosis found different (its own tolerance).
    """
    wrong = [index for index, different in enumerate(differs) if different]
    if not wrong:
        return None
    first = wrong[0]
    first_call = _call(function, parameters, probes[first])
    who = f"{function} (or {_and(list(helpers))}, if {function} calls {_them(helpers)})" if helpers else function
    if all(_nan_made_a_number(got[index].value, expected[index].value) for index in wrong):
        value, theirs = got[first].value, expected[first].value
        parts = [i for i, (a, b) in enumerate(zip(value, theirs)) if _nan_read(a, b)] if isinstance(theirs, tuple) else []
        where = f" in part {' and '.join(f'[{i}]' for i in parts)} of what it returns" if parts else ""
        return (
            f"{who} turns nan into 0 (as np.nan_to_num does): {first_call} gives 0{where} where "
            f"{lesson} gives nan, and the same answer everywhere else. The lesson's nan is a signal (in attention, of "
            "a query with every key masked): leave it where the lesson's code gives it."
        )
    return (
        f"{who} answers differently from {lesson}, and no mistake the grader knows explains it: "
        f"{first_call} {_difference(got[first], expected[first].value, lesson)}."
    )


def kept_from_earlier(
    function: str,
    parameters: Sequence[str],
    probes: Sequence[Any],
    got: Sequence[Any],
    differs: Sequence[bool],
    call: Callable[[Any], Any],
    lesson: Callable[..., Any],
) -> str | None:
    """The sentence of a function whose answer is one it gave an earlier call (see
    :func:`_kept_from_earlier`), or None. Its other wrong answers prove nothing then: they
    may be kept answers too."""
    kept = _kept_from_earlier(probes, got, differs, call, lesson)
    if kept is None:
        return None
    earlier, later = kept
    return (
        f"{function} answers a call with what it returned for an earlier call with other inputs of the same "
        f"shapes: {_call(function, parameters, probes[later])}, called after {_call(function, parameters, probes[earlier])}, "
        "returns the earlier call's answer, and so does a new input of those shapes, where the lesson's code answers "
        "each differently. Its answer depends on an earlier call (a cache, or a value kept between calls): compute "
        "every answer from its own inputs."
    )


def depends_on_history(
    function: str, parameters: Sequence[str], probe: Any, afresh_is_right: bool, helpers: Sequence[str] = ()
) -> str:
    """The sentence of a function that answered ``probe`` one way after the grader's earlier
    calls and another way as the first call of a fresh process (``afresh_is_right``: that
    second answer is the lesson's); ``helpers``: those it may call, where the cause may be."""
    right = " (the second is the lesson's answer)" if afresh_is_right else ""
    who = f"{function} (or {_and(list(helpers))}, if {function} calls {_them(helpers)})" if helpers else function
    return (
        f"{who} gives answers that depend on earlier calls: {_call(function, parameters, probe)} "
        f"returned one answer after the grader's earlier calls and another when called afresh{right}. "
        "The lesson's code answers every call from its own inputs alone; a value kept between calls (a cache "
        "keyed by shapes or ids, a global, a counter, a default argument changed in place, a random generator), "
        "or an array from np.empty read before it is written, carries one call's inputs into another's answer. "
        "Compute every answer from its own inputs."
    )


def hangs_on(
    function: str, parameters: Sequence[str], hung: Any, answered: Any, seconds: float, helpers: Sequence[str] = ()
) -> str:
    """The sentence of a function that timed out in a check: it did not return within
    ``seconds`` on the probe ``hung``, called first in a fresh process, and finished
    (returned or raised) on ``answered`` (both :class:`~grader.diagnoses.Probe` s, their
    values written out where short: which values it hangs on is the point); ``helpers``:
    those it may call, where the loop may be."""
    who = f"{function} (or {_and(list(helpers))}, if {function} calls {_them(helpers)})" if helpers else function
    return (
        f"{who} hangs on some inputs: {_shown(function, parameters, hung)} did not return within {seconds:g} s, "
        f"even as the first call of a fresh process, though {_shown(function, parameters, answered)} finished, and the lesson's "
        "code answers both at once. A loop whose end depends on the values it is given (a while loop waiting for "
        "a condition, say) may never end on some inputs; the lesson's code needs no such loop."
    )


def _shown(function: str, parameters: Sequence[str], probe: Any) -> str:
    """A probe's call with its values, or with its arguments' shapes where the values are long."""
    written = literal_call(probe)
    return written if len(written) <= LONGEST_LITERAL else _call(function, parameters, probe)


# Longer calls are told by their arguments' shapes: a sentence stays readable (and whole: a
# report keeps 1000 characters of each).
LONGEST_LITERAL = 160


def literal_call(probe: Any) -> str:
    """``f(np.array([[1.0, -np.inf]]), axis=0)``: a probe's call, its arrays written out."""
    shown = [literal(value) for value in probe.args] + [f"{key}={literal(value)}" for key, value in probe.kwargs.items()]
    return f"{probe.function}({', '.join(shown)})"


def literal(value: Any) -> str:
    """A value as Python source to paste beside ``import numpy as np``: an array as
    ``np.array([...])`` (``np.inf`` and ``np.nan`` for its non-finite entries, ``dtype=bool``
    for a mask), anything else by its repr."""
    if not isinstance(value, np.ndarray):
        return repr(value)
    written = re.sub(r"\b(inf|nan)\b", r"np.\1", repr(value.tolist()))
    return f"np.array({written}{', dtype=bool' if value.dtype == bool else ''})"


def right_on_every_probe(function: str, found: Mapping[str, str], helpers: Sequence[str] = ()) -> str:
    """The sentence of a function that answers every probe right but fails the checks of
    ``found`` (check id -> its feedback), whose examples called it alone; ``helpers``: the
    functions it calls, whose fault it may be as well."""
    check, feedback = next(iter(found.items()))
    others = f" (and {', '.join(list(found)[1:])})" if len(found) > 1 else ""
    who = f"{function} (and {_and(list(helpers))}, if it calls {_them(helpers)})" if helpers else function
    where = f" The fault may be in {function}, or in {_and(list(helpers))} if {function} calls {_them(helpers)}." if helpers else ""
    return (
        f"{who} answers every input the diagnosis tried as the lesson's code does, but not the input "
        f"{check}{others} tried: {feedback.rstrip('.')}. That input is in the check's reproduction.{where}"
    )


def changed_in_place(function: str, parameters: Sequence[str], probes: Sequence[Any], got: Sequence[Any]) -> str | None:
    """The sentence of a function that left some of its arguments changed; None if none."""
    changed = sorted({
        index for probe, answer in zip(probes, got)
        for index, (before, after) in enumerate(zip(probe.args, answer.args_after))
        if isinstance(before, np.ndarray) and not _identical(before, after)
    })
    if not changed:
        return None
    names = list(parameters) + [f"argument {i + 1}" for i in range(len(parameters), max(changed) + 1)]
    listed = _and([names[index] for index in changed])
    return (
        f"{function} changes {listed} in place (an operation such as x -= ..., x[...] = ... or np.exp(x, out=x) on "
        "an argument), so the caller's array is different after the call. Compute new arrays instead, as the "
        "lesson's code does: y = x - c makes a new array and leaves x alone."
    )


def no_probe_shows(checks: Sequence[str]) -> str:
    """The sentence of a head whose every function answers every probe right, though checks failed."""
    return (
        f"Every function answers the inputs the diagnosis tried as the lesson's code does, yet {', '.join(checks)} "
        "found a wrong answer: the input is in the reproduction shown with each."
    )


def _call(function: str, parameters: Sequence[str], probe: Any) -> str:
    """``f(x, y, mask) (x and y of shape (3, 3); mask causal)``: the call and what
    each argument is (shapes, and a mask's fully masked rows)."""
    names = list(parameters) + [f"argument {i + 1}" for i in range(len(parameters), len(probe.args))]
    shown = [names[i] for i in range(len(probe.args))] + [f"{key}={value!r}" for key, value in probe.kwargs.items()]
    groups: list[tuple[list[str], str]] = []
    for name, value in zip(names, probe.args):
        what = _argument(value)
        if not what:
            continue
        if groups and groups[-1][1] == what and what.startswith("of shape"):
            groups[-1][0].append(name)
        else:
            groups.append(([name], what))
    described = [f"{_and(group)} {what}" for group, what in groups]
    told = f"{function}({', '.join(shown)})"
    return f"{told} ({'; '.join(described)})" if described else told


def _argument(value: Any) -> str:
    if not isinstance(value, np.ndarray):
        return f"= {value!r}" if isinstance(value, (int, float)) else ""
    if value.dtype == bool and value.ndim == 2:
        dead = np.flatnonzero(~value.any(axis=1))
        if len(dead) == value.shape[0]:
            return "all False"
        if len(dead):
            return f"with row {', '.join(map(str, dead))} all False"
        if np.array_equal(value, np.tril(np.ones_like(value))):
            return "causal"
    return f"of shape {value.shape}"


def _them(names: Sequence[str]) -> str:
    return "it" if len(names) == 1 else "them"


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _difference(got: Any, expected: Any, lesson: str = "the lesson's code") -> str:
    """How the student's answer differs from the one ``lesson`` gives, at the first place it does."""
    theirs = "the lesson's" if lesson == "the lesson's code" else f"that of {lesson}"
    if got.value is RAISED:
        return f"raises {got.raised or 'an exception'}, where {lesson} returns {described(expected)}"
    if expected is RAISED:
        return f"returns {described(got.value)}, where {lesson} raises"
    value = got.value
    if isinstance(value, tuple) != isinstance(expected, tuple):
        return f"returns {described(value)}, where {lesson} returns {described(expected)}"
    if isinstance(expected, tuple):
        if len(value) != len(expected):
            return f"returns {described(value)}, where {lesson} returns {described(expected)}"
        for index, (part, other) in enumerate(zip(value, expected)):
            text = _array_difference(part, other, f"part [{index}]", theirs)
            if text:
                return f"returns a tuple whose {text}"
        return f"returns a tuple that differs from {theirs}"
    arrays = _floats(value, expected)
    if arrays is None:
        return f"returns {described(value)}, where {lesson} returns {described(expected)}"
    if arrays[0].shape != arrays[1].shape:
        return f"returns an array of shape {arrays[0].shape}, where {lesson} returns one of shape {arrays[1].shape}"
    return "returns an array whose " + (_array_difference(value, expected, "entry", theirs) or f"entries differ from {theirs}")


def _floats(got: Any, expected: Any) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        return np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return None


def _array_difference(got: Any, expected: Any, what: str, theirs: str = "the lesson's") -> str:
    arrays = _floats(got, expected)
    if arrays is None:
        return f"{what} is {described(got)}, where {theirs} is {described(expected)}"
    got, expected = arrays
    if got.shape != expected.shape:
        return f"{what} has shape {got.shape}, where {theirs} has shape {expected.shape}"
    with np.errstate(invalid="ignore"):
        close = np.isclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True)
    if close.all():
        return ""
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    where = f"{what} at {list(index)}" if index else what
    return f"{where} is {_number(got[index])}, where {theirs} is {_number(expected[index])}"


def _number(value: float) -> str:
    return "nan" if np.isnan(value) else f"{value:.6g}"


def described(value: Any) -> str:
    """A returned value in a few words: ``an array of shape (3, 2)``, ``a tuple (or list) of 2
    values``, ``None``, or what the sandbox could not send back."""
    if hasattr(value, "description"):  # a value the sandbox could not send back: what it was, not why
        return str(value.description).split(" (", 1)[0] + " the grader cannot read as arrays"
    if isinstance(value, tuple):
        return f"a tuple (or list) of {len(value)} value{'' if len(value) == 1 else 's'}"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return "None" if value is None else type(value).__name__


def _nan_made_a_number(got: Any, expected: Any) -> bool:
    """Where the lesson gives nan, numbers (in one value at least; nan may stay in another);
    everywhere else, the lesson's answer."""
    if isinstance(expected, tuple) != isinstance(got, tuple) or got is RAISED or got is None:
        return False
    if isinstance(expected, tuple) and len(got) != len(expected):
        return False
    pairs = list(zip(got, expected)) if isinstance(expected, tuple) else [(got, expected)]
    read = [_nan_read(a, b) for a, b in pairs]
    return all(state is not None for state in read) and any(read)


def _nan_read(got: Any, expected: Any) -> bool | None:
    """None where ``got`` is not the lesson's ``expected`` outside its nan; else whether some
    of its nan became numbers."""
    arrays = _floats(got, expected)
    if arrays is None or arrays[0].shape != arrays[1].shape:
        return None
    got, expected = arrays
    nan = np.isnan(expected)
    with np.errstate(invalid="ignore"):
        if not np.isclose(got[~nan], expected[~nan], rtol=1e-4, atol=1e-5).all():
            return None
    if not np.isfinite(got[nan]).all() and not np.isnan(got[nan]).all():
        return None  # inf where the lesson gives nan: not nan made a number
    replaced = got[nan][~np.isnan(got[nan])]
    if replaced.size and not (replaced == 0).all():
        return None  # other numbers (memory np.empty left, a fill value): not nan made 0
    return bool(replaced.size)


def _kept_from_earlier(
    probes: Sequence[Any],
    got: Sequence[Any],
    differs: Sequence[bool],
    call: Callable[[Any], Any],
    lesson: Callable[..., Any],
) -> tuple[int, int] | None:
    """``(earlier, later)``: a wrong answer that is exactly the right answer of an earlier call
    with other inputs of the same shapes, and that the function gives again to a new input of
    those shapes called right after that earlier call, where the lesson's code answers
    otherwise. A function that merely ignores an
    input (a mask) answers the new input anew, and is not told this."""
    for later in (index for index, different in enumerate(differs) if different):
        for earlier in range(later):
            if not (
                not differs[earlier]
                and _same_shapes(probes[earlier], probes[later])
                and not _identical(probes[earlier].args, probes[later].args)
                and _identical(got[earlier].value, got[later].value)
            ):
                continue
            fresh = dataclasses.replace(probes[later], args=tuple(_moved(arg) for arg in probes[later].args))
            if _identical(fresh.args, probes[later].args):
                return None
            try:
                with np.errstate(all="ignore"):
                    expected = lesson(*fresh.args, **fresh.kwargs)
            except Exception:  # the lesson's code refuses the new input: it proves nothing
                return None
            call(probes[earlier])  # as it was before, for a function that keeps only its last answer
            answer = call(fresh).value
            if _identical(answer, got[later].value) and not _identical(expected, answer):
                return earlier, later
            return None
    return None


def _moved(value: Any) -> Any:
    """A float array of the same shape with other values; anything else as it is."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value * 1.37 + 0.11
    return value


def _same_shapes(a: Any, b: Any) -> bool:
    """The arrays both calls pass (an optional mask one of them leaves out aside) have the same shapes."""
    return all(
        np.shape(x) == np.shape(y) for x, y in zip(a.args, b.args) if isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
    )


def _identical(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(_identical, a, b))
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a is b or a == b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except (TypeError, ValueError):
        return False
