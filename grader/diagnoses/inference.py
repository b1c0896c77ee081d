"""The engine of inferring what a function computes, step by step, from its answers.

:mod:`grader.diagnoses` first matches a head against whole variants of the reference,
one known mistake each. That misses a known mistake reached by other code, and a head
with two mistakes at once. So an assignment may model each function as the lesson's
steps, each step with the ways students get it wrong (:class:`Step`), and explain the
head's answers by the combinations of steps that reproduce every one of them.

A step is named only when every combination that explains all the answers has it wrong
the same way (:func:`shared_wrong`); so a diagnosis is proven, and several are given when
several steps differ. When no combination explains the answers, the assignment says what
the probes showed instead (true sentences, never a guess).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

RAISED = "raised"
# The answer of a call that raised on purpose (NotImplementedError, a failed assert): it
# proves nothing of any step, and no way that fails by accident raises "alike" it.
REFUSED = "refused"


def refused(value: Any) -> bool:
    return isinstance(value, str) and value == REFUSED


@dataclass(frozen=True)
class Step:
    """One way to do one step: its words, and the mistake id it is (None: the lesson's
    way, or a mistake with no id, which is said in words)."""

    words: str
    mistake: str | None = None
    correct: bool = False


def ok(words: str) -> Step:
    """The lesson's way of doing a step."""
    return Step(words, correct=True)


def lesson(table: dict[Step, Any]) -> Step:
    """The lesson's way of doing a step (each table lists it first)."""
    return next(iter(table))


@dataclass
class Finding:
    """What the inference proved (the wrong steps), or observed when nothing explains the answers."""

    steps: list[Step]
    observed: list[str]


def evaluate(function: Callable, args: tuple, kwargs: dict | None = None) -> Any:
    """``function``'s answer to ``args`` (on copies), or RAISED."""
    try:
        with np.errstate(all="ignore"):
            return function(*(np.copy(a) if isinstance(a, np.ndarray) else a for a in args), **(kwargs or {}))
    except Exception:
        return RAISED


def close(got: Any, want: Any, atol: float = 1e-5) -> bool:
    """The same answer: both raised, or arrays of one shape equal within the checks' tolerance."""
    if isinstance(got, str) or isinstance(want, str):
        return isinstance(got, str) and isinstance(want, str) and got == want
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    return got.shape == want.shape and near(got, want, atol)


def near(got: np.ndarray, want: np.ndarray, atol: float = 1e-5) -> bool:
    """Float arrays of one shape equal within the checks' tolerance (rtol 1e-4), nan where
    nan: ``np.allclose(got, want, rtol=1e-4, atol=atol, equal_nan=True)`` written out, as
    the diagnoses compare thousands of small arrays, where allclose's own checks cost more
    than the sums."""
    with np.errstate(all="ignore"):
        # An infinite expected value is close only to itself (its tolerance would be inf).
        within = (np.abs(got - want) <= atol + 1e-4 * np.abs(want)) & np.isfinite(want)
        return bool((within | (got == want) | (np.isnan(got) & np.isnan(want))).all())


# More wrong steps than this in one function is no explanation: five mistakes that together
# give what one mistake the search does not model gives (every part of A transposed where a
# mask was meant as triu) is a coincidence, not a reading of the code.
MOST_WRONG_STEPS = 4


def shared_wrong(explanations: Iterable[tuple[Step, ...]]) -> list[Step] | None:
    """The wrong steps every explanation has (a mistake id counts as one step, however it
    is spelled), or None when there is no explanation or the lesson's way is one. An
    explanation with more than MOST_WRONG_STEPS wrong steps counts as none."""
    sets = [[step for step in steps if not step.correct] for steps in explanations]
    sets = [wrong for wrong in sets if len({step.mistake or step for step in wrong}) <= MOST_WRONG_STEPS]
    if not sets or not all(sets):
        return None
    def keys(wrong: list[Step]) -> set:
        return {step.mistake or step for step in wrong}
    shared = set.intersection(*(keys(wrong) for wrong in sets))
    unique: dict[Any, Step] = {}
    for step in sets[0]:
        if (step.mistake or step) in shared:
            unique.setdefault(step.mistake or step, step)
    return list(unique.values())


def finding(wrong: list[Step], kind: str) -> Finding:
    """Named steps become diagnoses; steps with no id become observed sentences."""
    return Finding(
        [step for step in wrong if step.mistake is not None],
        [f"{kind} {step.words}." for step in wrong if step.mistake is None],
    )


# Each candidate's answer to each probe, kept for the process: probes are module
# constants, so a candidate is worked out once, not for every head diagnosed. Keyed by the
# probe's identity (arrays do not hash); the probe is kept with it, so the id stays its own.
_ANSWERS: dict[tuple[Any, int], tuple[Any, Any]] = {}


def cached(candidate: Any, probe: Any, evaluate: Callable[[], Any]) -> Any:
    """``evaluate()``, the answer of ``candidate`` to ``probe``, worked out once per process."""
    key = (candidate, id(probe))
    if key not in _ANSWERS:
        _ANSWERS[key] = (probe, evaluate())
    return _ANSWERS[key][1]
