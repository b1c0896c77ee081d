"""Named mistakes: which known mistake a failing head's answers match, in a student's words.

An assignment describes its known mistakes (:class:`Mistakes`) by what they do: most by
a *variant* of the reference that makes exactly that mistake (some have several common
spellings), a few by a property of the answers (:attr:`Mistake.shows_in`). After the
checks, a head that failed one is called on a few fixed probe inputs per function; a
mistake is diagnosed when the head's answers match the variant's on every probe of that
function and the variant differs from the reference on at least one of them. So a
correct head, which matches the reference, is never diagnosed, and a function with two
mistakes at once matches neither variant and gets no diagnosis: one is given only when
the behaviour really matches.

Where no variant matches a function, the assignment's inference (see
:mod:`grader.diagnoses.inference`) may work out from the same answers what the function
computes step by step, name each step that differs from the lesson, or say what the
probes showed (an ``observed`` entry) when no combination of known steps explains every
answer.

To add a mistake to an assignment: write its variant in the assignment's ``mistakes.py``
and add a :class:`Mistake` to its list; then add a head with that mistake to the
assignment's test heads with a ``# diagnosis:`` line.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grader.assignments import Assignment
from grader.diagnoses import inference
from grader.report import OBSERVED

RAISED = "raised"  # the answer of a call that raised


class Unanswered(Exception):
    """A call whose outcome tells nothing of the function: it hung, its worker crashed, or
    the diagnosis's time is spent. The function it probed (or whose inference made it) is
    then not read."""


@dataclass(frozen=True)
class Probe:
    """One call made to diagnose: the function, its positional and keyword arguments."""

    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """What a call gave back (RAISED if it raised), and its arguments after the call."""

    value: Any
    args_after: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its id, what to tell the student, the function it shows in, and
    either the variants that make it or a test of the answers for it."""

    id: str
    message: str
    function: str
    variants: tuple[Callable, ...] = ()
    shows_in: Callable[[list[Probe], list[Answer], list[Answer]], bool] | None = None
    # Functions it calls: a mistake there would show here too, so it must be right.
    builds_on: tuple[str, ...] = ()
    # What the mistake does to this very head, read from its answers to the probes: the
    # message's "{consequence}". A consequence is told only as the head's answers show it.
    consequence: Callable[[list[Probe], list[Answer]], str] | None = None
    # A mistake in what the function does besides its answers (it changes its inputs): the
    # answers may still be wrong in other ways, which the inference then reads.
    beside_answers: bool = False

    def told(self, probes: list[Probe], answers: list[Answer]) -> str:
        """The message for a head that gave ``answers`` to ``probes``."""
        if self.consequence is None:
            return self.message
        return self.message.format(consequence=self.consequence(probes, answers))


# An assignment's inference of one function: from the head's answers to its probes, a way
# to call the head (its own helpers, on inputs the inference chooses), and whether the
# functions it builds on are right (else it may model them by calling the head's own).
Inferred = Callable[[list[Any], Callable[[Probe], Answer], bool], inference.Finding]


@dataclass(frozen=True, eq=False)
class Mistakes:
    """An assignment's known mistakes: the probes of each function, the reference that
    answers them, the mistakes in the order they are told, and optionally an inference of
    each function with the functions it builds on (which must be right for it to run)."""

    probes: Mapping[str, list[Probe]]
    reference: Mapping[str, Callable]
    mistakes: tuple[Mistake, ...]
    inferred: Mapping[str, tuple[Inferred, tuple[str, ...]]] = field(default_factory=dict)
    # Messages for a mistake reached by inference another way than its variants'.
    inferred_messages: Mapping[str, str] = field(default_factory=dict)
    # A function's mistakes that the inference of the functions built on it models: those
    # may still be read when it has one of these and nothing else.
    modelled_downstream: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @functools.cached_property
    def by_id(self) -> dict[str, Mistake]:
        return {mistake.id: mistake for mistake in self.mistakes}


MAX_PICTURE_SIDE = 8


def fixed_matrix(seed: int, rows: int, cols: int, scale: float = 1.0) -> np.ndarray:
    """A probe's matrix: fixed, one-decimal values, the same on every machine and readable."""
    return np.round(np.random.default_rng(seed).normal(size=(rows, cols)), 1) * scale


def weights(answer: Answer, index: tuple[int, ...] = ()) -> list[list[float | None]] | None:
    """A from an answer ``(out, A)`` (``A[index]``) as rows of numbers (None for nan or inf),
    or None when the answer holds no small 2-D A there."""
    value = answer.value
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    try:
        A = np.asarray(value[1], dtype=float)
        A = A[index] if index else A
    except (TypeError, ValueError, IndexError):
        return None
    if A.ndim != 2 or max(A.shape) > MAX_PICTURE_SIDE:
        return None
    return [[round(float(v), 4) if np.isfinite(v) else None for v in row] for row in A]


@functools.cache
def reference_weights(assignment: Assignment, name: str) -> list[list[float | None]] | None:
    picture = assignment.pictures()[name]
    head = assignment.reference_functions()[picture.function]
    return weights(run(head, Probe(picture.function, picture.args)), picture.weights_index)


def run(function: Callable, probe: Probe) -> Answer:
    """What ``function`` (the reference or a variant) answers to ``probe``, in this process."""
    args = tuple(np.copy(arg) if isinstance(arg, np.ndarray) else arg for arg in probe.args)
    try:
        with np.errstate(all="ignore"):
            return Answer(function(*args, **probe.kwargs))
    except Exception:
        return Answer(RAISED)


def same(got: Any, expected: Any, atol: float = 1e-5) -> bool:
    """Equal answers: both raised, or the same structure of arrays with the same kind
    (bool or number) and shape, equal within tolerance, nan where nan."""
    if isinstance(got, str) or isinstance(expected, str):
        return isinstance(got, str) and isinstance(expected, str) and got == expected
    if isinstance(got, tuple) or isinstance(expected, tuple):
        return (
            isinstance(got, tuple) and isinstance(expected, tuple) and len(got) == len(expected)
            and all(same(a, b, atol) for a, b in zip(got, expected))
        )
    try:
        got, expected = np.asarray(got), np.asarray(expected)
    except Exception:
        return False
    if got.shape != expected.shape or (got.dtype == bool) != (expected.dtype == bool):
        return False
    if got.dtype == object or expected.dtype == object:
        return False
    # The checks' tolerance: a float32 head's answers are "the same" as float64 ones.
    return inference.near(got.astype(float), expected.astype(float), atol)


def identical(a: Any, b: Any) -> bool:
    """The same answer bit for bit (nan where nan)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except (TypeError, ValueError):
        return False


def changes_its_inputs(probes: list[Probe], answers: list[Answer], _: list[Answer]) -> bool:
    """A :attr:`Mistake.shows_in` test: some call left an argument changed."""
    return any(
        answer.args_after and not all(same(after, before) for after, before in zip(answer.args_after, probe.args))
        for probe, answer in zip(probes, answers)
    )


def diagnose(call: Callable[[Probe], Answer], known: Mistakes, suspects: set[str] | None = None) -> list[dict[str, str]]:
    """The known mistakes whose behaviour ``call`` (the submission) shows, as ``{"id", "message"}``,
    then what the probes showed of a wrong function no mistake explains (``"id": "observed"``);
    of the functions in ``suspects`` only (None: every function), those a check found wrong.

    ``call`` answers one probe; it raises :class:`Unanswered` where the call tells nothing:
    the function it probed, or whose inference called it (on the head's own helpers, after
    the probes), is then not read, and the others are.
    """
    answers: dict[str, list[Answer]] = {}
    for function, probes in known.probes.items():
        try:
            answers[function] = [call(probe) for probe in probes]
        except Unanswered:
            continue
    expected = {function: list(_answers(known, known.reference[function], function)) for function in known.probes}
    correct = {
        function: function in answers and all(same(a.value, b.value) for a, b in zip(answers[function], expected[function]))
        for function in known.probes
    }
    suspects = (set(known.probes) if suspects is None else suspects) & set(answers)
    found = []
    for mistake in known.mistakes:
        if mistake.function not in suspects or not all(correct[function] for function in mistake.builds_on):
            continue
        probes, got, expected_here = known.probes[mistake.function], answers[mistake.function], expected[mistake.function]
        if mistake.shows_in is not None:
            matched = mistake.shows_in(probes, got, expected_here)
        else:
            matched = any(_shows_variant(known, variant, mistake.function, got) for variant in mistake.variants)
        if matched:
            found.append({"id": mistake.id, "message": mistake.told(probes, got)})
    named = {known.by_id[entry["id"]].function for entry in found if not known.by_id[entry["id"]].beside_answers}
    for function, (infer, builds_on) in known.inferred.items():
        if correct[function] or function in named or function not in suspects:
            continue
        helpers_right = all(_usable(known, f, correct, found) for f in builds_on)
        try:
            finding = infer([answer.value for answer in answers[function]], call, helpers_right)
        except Unanswered:  # a call of the head's own helper told nothing: this function is not read
            continue
        seen = {entry["id"] for entry in found}
        for step in finding.steps:
            if step.mistake not in seen:
                seen.add(step.mistake)
                found.append({"id": step.mistake, "message": _message(known, step, answers[function])})
        found += [{"id": OBSERVED, "message": sentence} for sentence in finding.observed]
    return found


def _usable(known: Mistakes, function: str, correct: dict[str, bool], found: list[dict[str, str]]) -> bool:
    """Whether ``function`` is right, or wrong only in steps the functions built on it model."""
    if correct[function]:
        return True
    ids = {entry["id"] for entry in found if entry["id"] in known.by_id and known.by_id[entry["id"]].function == function}
    return bool(ids) and ids <= known.modelled_downstream.get(function, frozenset())


def _message(known: Mistakes, step: inference.Step, answers: list[Answer]) -> str:
    if step.message is None:
        mistake = known.by_id[step.mistake]
        return mistake.told(known.probes[mistake.function], answers)
    return known.inferred_messages[step.message].format(words=step.words)


@functools.cache
def _answers(known: Mistakes, head: Callable, function: str) -> tuple[Answer, ...]:
    """What ``head`` (the reference or a mistake's variant) answers to the probes of
    ``function``: the same for every submission diagnosed, so worked out once."""
    return tuple(run(head, probe) for probe in known.probes[function])


@functools.cache
def _differs_from_reference(known: Mistakes, variant: Callable, function: str) -> bool:
    expected = _answers(known, known.reference[function], function)
    return any(not same(a.value, b.value) for a, b in zip(_answers(known, variant, function), expected))


def _shows_variant(known: Mistakes, variant: Callable, function: str, got: list[Answer]) -> bool:
    made = _answers(known, variant, function)
    return _differs_from_reference(known, variant, function) and all(same(a.value, b.value) for a, b in zip(got, made))
