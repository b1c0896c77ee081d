"""A function diagnosed against the student's own helpers, when a helper is wrong.

A student's ``attention`` calls the student's ``softmax``; when that softmax is wrong,
every answer of attention is wrong too, and the lesson's model of attention
(:mod:`steps`) explains none of them. But the grader can call that softmax itself: here
attention's own steps (:class:`steps.Scores`: the scores' orientation, the divisor and
where it divides, a default mask, how the mask is read and applied; and rounding) are
searched with the student's softmax in the place of the lesson's, each candidate's
scores sent to it, so a step of attention is named whatever softmax does. Likewise
``self_attention`` is searched over the student's own ``attention``: which projection
makes Q, K and V and how, and whether the mask is passed on.

A step is named only when every combination that reproduces all of the head's answers has
it wrong the same way (as in :mod:`steps`); when none does (an attention with its own
inline softmax, say), nothing is said of it here. These calls are made only for a head
that failed a check, after its checks: when a helper is wrong, or when the lesson's model
of the helper explains nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.assignments.attention_head.steps import (
    MASKINGS,
    ROUNDINGS,
    SCALES,
    AttentionProbes,
    Scores,
    as_answered,
    attention_sentence,
    returned_forms,
    rounding_of,
    scores_table,
    self_attention_model,
    tolerance,
    weights_of,
)
from grader.authoring.steps import RAISED, Finding, Step, close, finding, shared_wrong
from grader.authoring.steps import ANY, Model, Stage, Ways, explain

# The student's function as the diagnosis calls it: arguments in, its answer (or RAISED) out.
StudentCall = Callable[..., Any]


@dataclass(frozen=True)
class Reading:
    """How the head's answers are read: what they show of A (``returns``), and the
    decimals its weights are rounded to."""

    returns: Step
    decimals: int | None

    def candidate(self, scores: Scores, softmax: StudentCall, probe: tuple) -> Any:
        """What ``scores`` with the student's softmax would show, read the same way."""
        try:
            with np.errstate(all="ignore"):
                A = scores.weights(softmax, probe)
        except (ValueError, TypeError, ZeroDivisionError):
            return RAISED
        A = A if isinstance(A, str) or self.decimals is None else np.round(A, self.decimals)
        return as_answered(A, probe, self.returns)


def _matches(scores: Scores, softmax: StudentCall, probes: tuple[tuple, ...], answers: list[Any], reading: Reading) -> bool:
    """Whether ``scores`` with the student's softmax gives what the head's answers show on
    every probe it answered (a probe the head raised on proves nothing)."""
    atol = tolerance(reading.decimals)
    for probe, answer in zip(probes, answers):
        if isinstance(answer, str):
            continue
        want = reading.candidate(scores, softmax, probe)
        if isinstance(want, str) or not close(answer, want, atol=atol):
            return False
    return True


def _remembered(call: StudentCall) -> StudentCall:
    """``call`` answering each array it is given once: many candidate scores coincide."""
    seen: dict[tuple, Any] = {}

    def remembered(s: np.ndarray) -> Any:
        key = (s.shape, s.dtype.str, s.tobytes())
        if key not in seen:
            seen[key] = call(s)
        return seen[key]

    return remembered


def infer_attention_over(
    softmaxes: list[StudentCall], probes: AttentionProbes, answers: dict[str, list[Any]], scales: tuple[Step, ...] = tuple(SCALES)
) -> Finding:
    """attention's own wrong steps, with the student's softmax (called each way in
    ``softmaxes``: as ``softmax(s)`` and as ``softmax(s, axis=-1)``) in the lesson's place;
    ``scales``: the divisors searched."""
    every = [*probes.moderate, *probes.large, *probes.masked]
    values = [*answers["moderate"], *answers["large"], *answers["masked"]]
    if all(isinstance(value, str) for value in values):  # it raised on every probe: nothing to read
        return Finding([], [])
    softmaxes = [_remembered(call) for call in softmaxes]
    explained: list[tuple[Step, ...]] = []
    for returns, combine in returned_forms(every, values):
        own = {kind: [weights_of(value, returns) for value in answers[kind]] for kind in answers}
        found = _explained(softmaxes, probes, own, Reading(returns, None), scales)
        # A head that rounds its weights, when nothing unrounded explains them (weights of all
        # zeros are "rounded" too): the candidates are rounded the same way.
        decimals = rounding_of(own["moderate"], returns)
        if not found and decimals is not None:
            rounding = next(step for step, places in ROUNDINGS.items() if places == decimals)
            found = [(*steps, rounding) for steps in _explained(softmaxes, probes, own, Reading(returns, decimals), scales)]
        explained += [(returns, combine, *steps) for steps in found]
    wrong = shared_wrong(explained)
    if wrong is None:  # unexplained, or the lesson's steps explain it
        return Finding([], [])
    named = [step for step in wrong if step.mistake is not None]
    return Finding(named, [attention_sentence(step) for step in wrong if step.mistake is None])


def _explained(
    softmaxes: list[StudentCall], probes: AttentionProbes, own: dict[str, list[Any]], reading: Reading, scales: tuple[Step, ...]
) -> list[tuple[Step, ...]]:
    """The steps of every candidate that, around one of the student's ``softmaxes``, gives
    what the head's answers show (``own``), read as ``reading``."""
    every = [*probes.moderate, *probes.large, *probes.masked]
    values = [*own["moderate"], *own["large"], *own["masked"]]
    unmasked = len(probes.moderate) + len(probes.large)
    explained: list[tuple[Step, ...]] = []
    for softmax in softmaxes:

        def shown(ways: Ways, probe: tuple, softmax: StudentCall = softmax) -> Any:
            return reading.candidate(ways["scores"].masked(*ways["masking"]), softmax, probe)

        model = Model(
            tables={"scores": scores_table(scales), "masking": {pair: pair for pair in MASKINGS}},
            stages=(Stage(("scores",), tuple(range(unmasked))), Stage(("masking",), tuple(range(unmasked, len(every))))),
            compute=shown,
            atol=tolerance(reading.decimals),
        )
        # Each probe is passed whole, as its own argument.
        explained += explain(model, [(probe,) for probe in every], values, prefer_alike=False)
    return explained


def infer_self_attention_over(attention: StudentCall, probes: list[tuple], answers: list[Any]) -> Finding:
    """Which projections make Q, K and V, and whether the mask is passed on, with the
    student's own attention (``attention(Q, K, V)`` or ``attention(Q, K, V, mask)``): a raise
    of the head is matched by any raise of the way."""
    explained = explain(self_attention_model(attention), probes, answers, prefer_alike=False, raises=ANY)
    wrong = shared_wrong(explained)
    return Finding([], []) if wrong is None else finding(wrong, "self_attention")
