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

#: What a call that raised answers, for a way of a step (:func:`evaluate`,
#: :meth:`~grader.diagnoses.search.Model.answer`) as for the student (:func:`grader.diagnoses.values_read`).
RAISED = "raised"
# The answer of a call that raised on purpose (NotImplementedError, a failed assert): it
# proves nothing of any step, and no way that fails by accident raises "alike" it.
REFUSED = "refused"


def refused(value: Any) -> bool:
    """Whether ``value`` (one of :func:`grader.diagnoses.values_read`'s) is a raise on purpose
    (``NotImplementedError``, a failed ``assert``), which proves nothing of any step: leave
    such probes out of what an inference reads. Example::

        answered = [(probe, value) for probe, value in zip(probes, values) if not refused(value)]
    """
    return isinstance(value, str) and value == REFUSED


@dataclass(frozen=True)
class Step:
    """One way to do one step: its words, and the mistake id it is (None: the lesson's
    way, or a mistake with no id, which is said in words).

    The keys of a step table (:data:`~grader.diagnoses.search.Table`); the explanations
    :func:`~grader.diagnoses.search.explain` returns are tuples of them.

    Fields:

    words
        What this way does, in words that complete the mistake's message: a
        :class:`~grader.diagnoses.Mistake` named by this step is told with ``{words}``
        replaced by them. A wrong way with no id is told as an observed sentence,
        ``"<kind> <words>."`` (:func:`finding`). Required. Example: ``"the row mean"``.
    mistake
        The id of the :class:`~grader.diagnoses.Mistake` this way is (it must be in
        :attr:`Mistakes.mistakes <grader.diagnoses.Mistakes.mistakes>`); several ways may
        share one, each spelling of the mistake. Default ``None``: the lesson's way, or a
        wrong way the catalogue has no id for. Example: ``"layer_norm_sample_variance"``.
    correct
        True for the lesson's way (:func:`ok` sets it), default ``False``. Correct steps
        are never named, and an explanation made of correct steps only means the answers
        may be right: then nothing is named.

    Example::

        VARIANCES = {
            ok("the variance"): lambda X: X.var(axis=-1, keepdims=True),
            Step("the sample variance (ddof=1)", "layer_norm_sample_variance"): lambda X: X.var(axis=-1, ddof=1, keepdims=True),
            Step("the standard deviation"): lambda X: X.std(axis=-1, keepdims=True),   # said as an observed sentence
        }
    """

    words: str
    mistake: str | None = None
    correct: bool = False


def ok(words: str) -> Step:
    """The lesson's way of doing a step: ``Step(words, correct=True)``, the first key of
    each table. Example: ``ok("the variance")``."""
    return Step(words, correct=True)


def lesson(table: dict[Step, Any]) -> Step:
    """The lesson's way of doing a step (each table lists it first).

    ``table``: a step table; returns its first key. Example:
    ``lesson(VARIANCES)`` is ``ok("the variance")``.
    """
    return next(iter(table))


@dataclass
class Finding:
    """What the inference proved (the wrong steps), or observed when nothing explains the answers.

    What an inference (:attr:`Mistakes.inferred <grader.diagnoses.Mistakes.inferred>`)
    returns; ``Finding([], [])`` says nothing.

    Fields:

    steps
        The wrong steps proven, each with a mistake id of the assignment: each is told as
        that mistake, with the step's ``words`` in its message's ``{words}``. Example:
        ``[Step("the sample variance (ddof=1)", "layer_norm_sample_variance")]``.
    observed
        Sentences of what the probes showed, true of this student's answers, when no
        combination of known steps explains them: each is told as an ``observed`` entry,
        which names no mistake. Example:
        ``["layer_norm's rows do not have mean 0 for X of shape (3, 4)."]``.
    """

    steps: list[Step]
    observed: list[str]


def evaluate(function: Callable, args: tuple, kwargs: dict | None = None) -> Any:
    """``function``'s answer to ``args`` (on copies), or RAISED.

    ``function``: any function run in the grader's process (a way, the lesson's code);
    ``args``: its positional arguments (arrays are copied first); ``kwargs``: its keyword
    arguments (default none). Floating-point warnings are silenced. Example::

        evaluate(lambda x: x / x.sum(), (np.zeros(3),))   # nan, no warning
    """
    try:
        with np.errstate(all="ignore"):
            return function(*(np.copy(a) if isinstance(a, np.ndarray) else a for a in args), **(kwargs or {}))
    except Exception:
        return RAISED


def close(got: Any, want: Any, atol: float = 1e-5) -> bool:
    """The same answer: both raised, or arrays of one shape equal within the checks' tolerance.

    ``got`` and ``want``: two values (strings stand for raises, and equal only the same
    string); ``atol`` (default 1e-5) with a relative tolerance of 1e-4, nan where nan.
    Tuples are not compared part by part: see :func:`~grader.diagnoses.search.same_value`.
    Example: ``close(answer, want, atol=5e-4)`` for weights rounded to 3 decimals.
    """
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
    explanation with more than MOST_WRONG_STEPS wrong steps counts as none.

    ``explanations``: tuples of steps, as :func:`~grader.diagnoses.search.explain` returns
    them. Of a mistake spelled several ways, the first explanation's spelling is kept (see
    :func:`~grader.diagnoses.search.proven` to drop words that are a guess). An empty list
    means every explanation has a wrong step but no one step is in all of them: nothing
    is named. Example::

        wrong = shared_wrong(explained)
        found = finding(wrong, "layer_norm divides by") if wrong is not None else Finding([], [])
    """
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
    """Named steps become diagnoses; steps with no id become observed sentences.

    ``wrong``: the steps proven wrong (:func:`shared_wrong`, :func:`~grader.diagnoses.search.proven`);
    ``kind``: how an observed sentence starts, followed by the step's words and a full stop.
    Example: ``finding([Step("the standard deviation")], "layer_norm divides by")`` observes
    ``"layer_norm divides by the standard deviation."``.
    """
    return Finding(
        [step for step in wrong if step.mistake is not None],
        [f"{kind} {step.words}." for step in wrong if step.mistake is None],
    )


# Each candidate's answer to each probe, kept for the process: probes are module
# constants, so a candidate is worked out once, not for every head diagnosed. Keyed by the
# probe's identity (arrays do not hash); the probe is kept with it, so the id stays its own.
_ANSWERS: dict[tuple[Any, int], tuple[Any, Any]] = {}


def cached(candidate: Any, probe: Any, evaluate: Callable[[], Any]) -> Any:
    """``evaluate()``, the answer of ``candidate`` to ``probe``, worked out once per process.

    ``candidate``: a hashable key for the way (the same for every head diagnosed: never a
    way that calls the student's code); ``probe``: a module constant (it is kept by its
    identity, and kept alive); ``evaluate``: makes the answer when it is not kept yet.
    Example::

        A = cached(weights, probe, lambda: evaluate(weights, probe))
    """
    key = (candidate, id(probe))
    if key not in _ANSWERS:
        _ANSWERS[key] = (probe, evaluate())
    return _ANSWERS[key][1]
