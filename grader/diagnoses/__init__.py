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

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grader.diagnoses import inference, unfinished
from grader.report import OBSERVED, UNFINISHED

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
    """What a call gave back (RAISED if it raised), its arguments after the call, and for a
    call that raised the exception's type and message (read to tell what kind of failure it
    is, never shown)."""

    value: Any
    args_after: tuple[Any, ...] = ()
    raised: str | None = None
    text: str = ""
    line: int | None = None  # the line of the submission the exception was raised at


@dataclass(frozen=True)
class Evidence:
    """Every function's probes and the head's answers to them (a function whose probes went
    unanswered has none)."""

    probes: Mapping[str, list[Probe]]
    answers: Mapping[str, list[Answer]]
    # A function read through a batch of one (Mistakes.batch_axis): what it gave the probes as they are.
    unbatched: dict[str, list[Answer]] = field(default_factory=dict)


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its id, what to tell the student, the function it shows in, and
    either the variants that make it or a test of the answers for it. A mistake with
    neither is one the inference alone names (a step of a function, :mod:`inference`)."""

    id: str
    message: str
    function: str
    variants: tuple[Callable, ...] = ()
    shows_in: Callable[[list[Probe], list[Answer], list[Answer]], bool] | None = None
    # Functions it calls: a mistake there would show here too, so it must be right.
    builds_on: tuple[str, ...] = ()
    # What the mistake does to this very head, read from its answers (any function's): the
    # message's "{consequence}". A consequence is told only as the head's answers show it.
    consequence: Callable[[Evidence], str] | None = None
    # A mistake in what the function does besides its answers (it changes its inputs): the
    # answers may still be wrong in other ways, which the inference then reads.
    beside_answers: bool = False
    # The mistake of a helper this one repeats in the function's own code (a step of the
    # helper, made where the function computes the helper's work itself): not told where the
    # helper is told it, as the function may be calling that helper.
    same_as: str | None = None
    # Mistakes of its helpers that would give the same answers when the function calls them
    # (a normalisation along the wrong axis, in a function that calls it): where the head is told one,
    # this one is not proven, and not told.
    echoes: tuple[str, ...] = ()
    # What a message's "{words}" says when no step of the inference gave its own (a variant matched).
    words: str = ""
    # The checks meant to catch it: ``grader validate`` grades its variant and wants points
    # lost on each of them (none named: any check will do).
    caught_by: tuple[str, ...] = ()

    def told(self, evidence: Evidence, words: str = "") -> str:
        """The message for a head whose answers are ``evidence`` (``words``: the step the
        inference found, for a message that names it)."""
        consequence = self.consequence(evidence) if self.consequence is not None else ""
        return self.message.format(consequence=consequence, words=words or self.words)


# The student's own function as the diagnosis calls it: arguments in, its value out; a call
# that raised raises :class:`HelperRaised`.
StudentCall = Callable[..., Any]


class HelperRaised(Exception):
    """The student's helper raised, when the lesson's function called it (see
    :attr:`Mistakes.over_helpers`): the lesson's function raises the same."""

    def __init__(self, raised: str | None) -> None:
        super().__init__(raised)
        self.raised = raised


@dataclass(frozen=True)
class BatchAxis:
    """A function that code written for a batch may be: the id of that mistake, and which of
    its arguments take the batch axis (the sequences, not the weights)."""

    mistake: str
    arguments: tuple[int, ...]

    def batched(self, probe: Probe) -> Probe:
        args = tuple(arg[None] if i in self.arguments and isinstance(arg, np.ndarray) else arg for i, arg in enumerate(probe.args))
        return Probe(probe.function, args, probe.kwargs)


# An assignment's inference of one function: from the head's answers to its probes, a way
# to call the head (its own helpers, on inputs the inference chooses), how its helpers stand
# (RIGHT, WRONG: read over the head's own, UNREADABLE: unfinished or unanswered), and how
# every function read before it stands.
Inferred = Callable[[list[Answer], Callable[[Probe], Answer], str, Mapping[str, str]], inference.Finding]
RIGHT, WRONG, UNREADABLE = "right", "wrong", "unreadable"


@dataclass(frozen=True, eq=False)
class Mistakes:
    """An assignment's known mistakes: the probes of each function, the reference that
    answers them, the mistakes in the order they are told, and optionally: each function's
    parameters and helpers (the functions it calls in the lesson), the lesson's function
    over the student's own helpers, an inference of each function, and the placeholders of
    the lesson that an unfinished function returns."""

    probes: Mapping[str, list[Probe]]
    reference: Mapping[str, Callable]
    mistakes: tuple[Mistake, ...]
    parameters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    helpers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The lesson's function with the student's helpers in their place, once per way it may
    # call them, given the student's functions by name: a function whose answers one of
    # these gives is right, whatever its helpers do, and is told nothing.
    over_helpers: Mapping[str, Callable[[Callable[[str], StudentCall]], list[Callable]]] = field(default_factory=dict)
    inferred: Mapping[str, Inferred] = field(default_factory=dict)
    # An unfinished function's sentence beyond the generic ones (grader.diagnoses.unfinished).
    placeholders: Mapping[str, Callable[[list[Probe], list[Answer]], unfinished.Stub | None]] = field(default_factory=dict)
    # Functions that may be written for a leading batch axis: they raise on every probe and
    # answer each with a batch of one; the mistake is named, and the function read through it.
    batch_axis: Mapping[str, BatchAxis] = field(default_factory=dict)

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


def run(function: Callable, probe: Probe) -> Answer:
    """What ``function`` (the reference, a variant, or the lesson's function over the
    student's helpers) answers to ``probe``, in this process."""
    args = tuple(np.copy(arg) if isinstance(arg, np.ndarray) else arg for arg in probe.args)
    try:
        with np.errstate(all="ignore"):
            return Answer(function(*args, **probe.kwargs))
    except HelperRaised as raised:
        return Answer(RAISED, raised=raised.raised)
    except Exception as error:
        return Answer(RAISED, raised=type(error).__name__)


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
    if got is None or expected is None:
        return got is None and expected is None
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


def same_answer(got: Answer, expected: Answer) -> bool:
    """:func:`same`, and where both raised, the same kind of exception (when both are known)."""
    if got.value is RAISED and expected.value is RAISED and got.raised and expected.raised:
        return got.raised == expected.raised
    return same(got.value, expected.value)


def identical(a: Any, b: Any) -> bool:
    """The same answer bit for bit (nan where nan)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a is b or (isinstance(a, str) and a == b)
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


def values_read(got: list[Answer]) -> list[Any]:
    """The answers' values as an inference reads them: a raise on purpose (NotImplementedError,
    an assert) marked :data:`inference.REFUSED`, as it proves nothing of any step."""
    return [inference.REFUSED if answer.raised in DELIBERATE else answer.value for answer in got]


def student_function(call: Callable[[Probe], Answer], function: str, **kwargs: Any) -> StudentCall:
    """The head's own ``function`` as the lesson's code calls it: its value, or
    :class:`HelperRaised` where the call raised."""

    def student(*args: Any) -> Any:
        answer = call(Probe(function, args, kwargs))
        if answer.value is RAISED:
            raise HelperRaised(answer.raised)
        return answer.value

    return student


def diagnose(call: Callable[[Probe], Answer], known: Mistakes, suspects: set[str] | None = None) -> list[dict[str, str]]:
    """The known mistakes whose behaviour ``call`` (the submission) shows, as ``{"id", "message"}``,
    then what the probes showed of a wrong function no mistake explains (``"id": "observed"``),
    and what an unfinished function does (``"id": "unfinished"``); of the functions in
    ``suspects`` only (None: every function), those a check found wrong.

    Each function is read in the order of :attr:`Mistakes.probes`, helpers first:

    - right on every probe, or right over the student's own helpers where those are not
      (a correct function over a helper that is a stub): nothing is said of it;
    - unfinished (a stub or a placeholder, :mod:`grader.diagnoses.unfinished`): it is told
      so, in words, and nothing else;
    - else its mistakes: the variants it matches, then the inference's steps.

    ``call`` answers one probe; it raises :class:`Unanswered` where the call tells nothing:
    the function it probed, or whose reading made it (on the head's own helpers, after the
    probes), is then not read, and the others are.
    """
    answers: dict[str, list[Answer]] = {}
    for function, probes in known.probes.items():
        try:
            answers[function] = [_as_tuple(call(probe)) for probe in probes]
        except Unanswered:
            continue
    suspects = (set(known.probes) if suspects is None else suspects) & set(answers)
    evidence = Evidence(known.probes, answers, {})
    standing: dict[str, str] = {}  # RIGHT, WRONG or UNREADABLE, once worked out
    stubs: dict[str, str] = {}  # each stub read so far, and its kind
    found: list[dict[str, str]] = []
    for function in known.probes:
        if function not in answers:
            standing[function] = UNREADABLE
            continue
        expected = _answers(known, known.reference[function], function)
        helpers = known.helpers.get(function, ())
        below = _worst(standing.get(helper, UNREADABLE) for helper in helpers)
        right = all(same(a.value, b.value) for a, b in zip(answers[function], expected))
        try:
            batched = None if right else _through_a_batch_of_one(known, function, answers[function], call)
            if batched is not None:  # read through a batch of one from here on
                evidence.unbatched[function], answers[function] = answers[function], batched
            if not right and below != RIGHT and _follows_helpers(known, function, answers[function], call, batched is not None):
                standing[function] = WRONG if below == WRONG else UNREADABLE  # right, over helpers that are not
                continue
        except Unanswered:
            standing[function] = UNREADABLE
            continue
        # A function whose helper needs a batch too may raise only through it: its own need is not proven.
        if batched is not None and function in suspects and not any(helper in evidence.unbatched for helper in helpers):
            mistake = known.by_id[known.batch_axis[function].mistake]
            found.append({"id": mistake.id, "message": mistake.told(evidence)})
        got = answers[function]
        if all(same(a.value, b.value) for a, b in zip(got, expected)):
            # Right through a batch of one, it still raises where the lesson's code calls it.
            standing[function] = WRONG if batched is not None else RIGHT
            if function in suspects:  # right answers, but it may still change its inputs
                found += _mistakes_of(known, function, evidence, standing, RIGHT, call, beside_answers_only=True)
            continue
        stub = _unfinished(known, function, got, expected)
        if stub is not None:
            standing[function] = WRONG if stub.follows_input else UNREADABLE
            # What a stub below it returns (zeros, uniform weights) or raises may be all this
            # one passes on: then its own sentence would not be proven, and is not said.
            kinds_below = {kind for helper, kind in stubs.items() if helper in _helpers_below(known, function)}
            inherited = stub.may_come_from(kinds_below) or _raised_where_another_did(
                function, got, {other: answers[other] for other in stubs}
            )
            if function in suspects and not inherited:
                found.append({"id": UNFINISHED, "message": stub.sentence})
            stubs[function] = stub.kind
            continue
        standing[function] = WRONG
        if function in suspects:
            found += _own_asserts(function, got)
            told = {entry["id"] for entry in found}
            found += [
                entry for entry in _mistakes_of(known, function, evidence, standing, below, call)
                if entry["id"] not in known.by_id or not _echoes(known.by_id[entry["id"]]) & told
            ]
    return _unique(found)


def _echoes(mistake: Mistake) -> set[str]:
    return set(mistake.echoes) | ({mistake.same_as} if mistake.same_as else set())


def _helpers_below(known: Mistakes, function: str) -> set[str]:
    """The functions ``function`` builds on in the lesson, and those they build on."""
    below: set[str] = set()
    waiting = list(known.helpers.get(function, ()))
    while waiting:
        helper = waiting.pop()
        if helper not in below:
            below.add(helper)
            waiting += known.helpers.get(helper, ())
    return below


def _raised_where_another_did(function: str, got: list[Answer], answers: dict[str, list[Answer]]) -> bool:
    """Whether each of the function's raises came from a line where a stub read before it
    raised the same (a stub it calls, whichever it is)."""
    lines = {(answer.raised, answer.line) for answer in got if answer.value is RAISED}
    if not lines or any(line is None for _, line in lines):
        return False
    elsewhere = {
        (answer.raised, answer.line) for other, theirs in answers.items() if other != function
        for answer in theirs if answer.value is RAISED
    }
    return lines <= elsewhere


def _through_a_batch_of_one(
    known: Mistakes, function: str, got: list[Answer] | None, call: Callable[[Probe], Answer]
) -> list[Answer] | None:
    """The answers of a function that raised on every probe but answers each one with every
    array given a leading batch axis of one, that axis taken off again; else None."""
    if function not in known.batch_axis or not got or not all(
        answer.value is RAISED and answer.raised != unfinished.NOT_IMPLEMENTED for answer in got
    ):
        return None
    batched = []
    for probe in known.probes[function]:
        answer = _unbatched(_as_tuple(call(known.batch_axis[function].batched(probe))))
        if answer is None:
            return None
        batched.append(answer)
    return batched


def _unbatched(answer: Answer) -> Answer | None:
    """An answer to a batch of one with that batch axis taken off, if it has one."""
    value = answer.value
    parts = value if isinstance(value, tuple) else (value,)
    if value is RAISED or not all(isinstance(part, np.ndarray) and part.ndim >= 1 and part.shape[0] == 1 for part in parts):
        return None
    unwrapped = tuple(part[0] for part in parts)
    after = tuple(arg[0] if isinstance(arg, np.ndarray) and arg.ndim >= 1 and arg.shape[0] == 1 else arg for arg in answer.args_after)
    return Answer(unwrapped if isinstance(value, tuple) else unwrapped[0], after)


def _as_tuple(answer: Answer) -> Answer:
    """A list of values read as the tuple it stands for (``return [out, A]`` unpacks as ``return out, A``)."""
    if isinstance(answer.value, list):
        return dataclasses.replace(answer, value=tuple(answer.value))
    return answer


def _own_asserts(function: str, got: list[Answer]) -> list[dict[str, str]]:
    """What an assert in the function's own code did: it failed on some probes, not all."""
    failed = sum(answer.raised == "AssertionError" for answer in got)
    if not failed or failed == len(got):
        return []
    return [{"id": OBSERVED, "message": (
        f"{function} raised AssertionError (an assert in its code failed) on {failed} of the {len(got)} inputs the "
        "diagnosis tried, and answered the others; the checks draw inputs like those, so the assert costs points. "
        "If it compares floats with ==, rounding alone makes it fail: compare with np.allclose."
    )}]


def _worst(standings: Iterable[str]) -> str:
    standings = set(standings)
    return UNREADABLE if UNREADABLE in standings else WRONG if WRONG in standings else RIGHT


def _follows_helpers(
    known: Mistakes, function: str, got: list[Answer], call: Callable[[Probe], Answer], batched: bool = False
) -> bool:
    """Whether the lesson's ``function`` over the student's own helpers gives every answer
    (``batched``: the answers through a batch of one, the lesson's function called so too)."""
    if function not in known.over_helpers:
        return False
    probes = known.probes[function]
    if batched:
        probes = [known.batch_axis[function].batched(probe) for probe in probes]
    for candidate in known.over_helpers[function](lambda name, **kwargs: student_function(call, name, **kwargs)):
        made = [run(candidate, probe) for probe in probes]
        if batched:
            made = [_unbatched(answer) or Answer(RAISED) for answer in made]
        if all(same_answer(answer, mine) for answer, mine in zip(got, made)):
            return True
    return False


def _unfinished(known: Mistakes, function: str, got: list[Answer], expected: tuple[Answer, ...]) -> unfinished.Stub | None:
    probes = known.probes[function]
    stub = unfinished.described(
        function, known.parameters.get(function, ()), [probe.args for probe in probes], got, [a.value for a in expected]
    )
    if stub is None and function in known.placeholders:
        stub = known.placeholders[function](probes, got)
    return stub


def _mistakes_of(
    known: Mistakes,
    function: str,
    evidence: Evidence,
    standing: dict[str, str],
    below: str,
    call: Callable[[Probe], Answer],
    beside_answers_only: bool = False,
) -> list[dict[str, str]]:
    """A wrong function's mistakes: the variants and tests it matches, then what the
    inference proves of it (when nothing but what it does besides its answers is named)."""
    probes, got = known.probes[function], evidence.answers[function]
    expected = list(_answers(known, known.reference[function], function))
    found = []
    for mistake in known.mistakes:
        if mistake.function != function or not all(standing.get(f) == RIGHT for f in mistake.builds_on):
            continue
        if beside_answers_only and not mistake.beside_answers:
            continue
        if mistake.shows_in is not None:
            matched = mistake.shows_in(probes, got, expected)
        else:
            matched = any(_shows_variant(known, variant, function, got) for variant in mistake.variants)
        if matched:
            found.append({"id": mistake.id, "message": mistake.told(evidence)})
    if beside_answers_only or function not in known.inferred or any(not known.by_id[entry["id"]].beside_answers for entry in found):
        return found
    try:
        finding = known.inferred[function](got, call, below, standing)
    except Unanswered:  # a call of the head's own helper told nothing: this function is not read
        return found
    for step in finding.steps:
        found.append({"id": step.mistake, "message": known.by_id[step.mistake].told(evidence, step.words)})
    return found + [{"id": OBSERVED, "message": sentence} for sentence in finding.observed]


def _unique(found: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each id once (the first message), but every sentence of what was observed."""
    seen, kept = set(), []
    for entry in found:
        key = entry["message"] if entry["id"] in (OBSERVED, UNFINISHED) else entry["id"]
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return kept


@functools.cache
def _answers(known: Mistakes, head: Callable, function: str) -> tuple[Answer, ...]:
    """What ``head`` (the reference or a mistake's variant) answers to the probes of
    ``function``: the same for every submission diagnosed, so worked out once."""
    return tuple(run(head, probe) for probe in known.probes[function])


@functools.cache
def _differs_from_reference(known: Mistakes, variant: Callable, function: str) -> bool:
    expected = _answers(known, known.reference[function], function)
    return any(not same(a.value, b.value) for a, b in zip(_answers(known, variant, function), expected))


# Exceptions a student raises on purpose (a refusal, a stub, an assert): a variant that fails
# on the same input by accident does not make that mistake.
DELIBERATE = frozenset({unfinished.NOT_IMPLEMENTED, "AssertionError"})


def _shows_variant(known: Mistakes, variant: Callable, function: str, got: list[Answer]) -> bool:
    made = _answers(known, variant, function)
    return _differs_from_reference(known, variant, function) and all(
        same(a.value, b.value) and a.raised not in DELIBERATE for a, b in zip(got, made)
    )
