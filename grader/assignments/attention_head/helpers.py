"""A function diagnosed against the student's own helpers, when a helper is wrong.

A student's ``attention`` calls the student's ``softmax``; when that softmax is wrong,
every answer of attention is wrong too, and the lesson's model of attention
(:mod:`steps`) explains none of them. But the grader can call that softmax itself: here
attention's own steps (the scores' orientation, the divisor, true or floor division, a
default mask, how masked positions are treated) are searched with the student's softmax
in the place of the lesson's, each candidate's scores sent to it, so a step of attention
is named whatever softmax does. Likewise ``self_attention`` is searched over the
student's own ``attention``: which projection makes Q, K and V, and whether the mask is
passed on.

A step is named only when every combination that reproduces all of the head's answers has
it wrong the same way (as in :mod:`steps`); when none does (an attention with its own
inline softmax, say), nothing is said of it here. These calls are made only for a head
whose helper is wrong, after its checks.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.assignments.attention_head.steps import (
    AFTER_SOFTMAX,
    DEFAULT_MASKS,
    DIVISIONS,
    MASK_PASSING,
    MASKINGS,
    ORIENTATIONS,
    ROLE_ASSIGNMENTS,
    SCALES,
    AttentionProbes,
    attention_sentence,
    close_pair,
    returned_form,
    weights_of,
)
from grader.diagnoses.inference import RAISED, Finding, Step, close, finding, lesson, shared_wrong

# The student's function as the diagnosis calls it: arguments in, its answer (or RAISED) out.
StudentCall = Callable[..., Any]


@dataclass(frozen=True)
class Scores:
    """One way of computing attention's scores and applying its mask, before softmax."""

    orientation: Step
    scale: Step
    division: Step
    default_mask: Step
    masking: Step = lesson(MASKINGS)

    def steps(self) -> tuple[Step, ...]:
        return (self.orientation, self.scale, self.division, self.default_mask, self.masking)

    def weights(self, softmax: StudentCall, probe: tuple) -> Any:
        """A as this way computes it with ``softmax``: the scores through the student's softmax."""
        Q, K, V = probe[:3]
        mask = probe[3] if len(probe) > 3 else None
        try:
            nq, dk = Q.shape
            nk, dv = V.shape
            with np.errstate(all="ignore"):
                s = DIVISIONS[self.division](ORIENTATIONS[self.orientation](Q, K), SCALES[self.scale](dk, dv, nq, nk))
        except (ValueError, ZeroDivisionError):
            return RAISED
        if mask is None and DEFAULT_MASKS[self.default_mask]:
            mask = np.tril(np.ones(s.shape, dtype=bool))
        after = self.masking is AFTER_SOFTMAX
        if mask is not None and not after:
            with np.errstate(all="ignore"):
                s = MASKINGS[self.masking](s, mask)
        A = softmax(s)
        if isinstance(A, str) or mask is None or not after:
            return A
        try:
            return np.where(mask, np.asarray(A, dtype=float), 0.0)
        except (TypeError, ValueError):
            return RAISED


def _first_stage() -> list[Scores]:
    return [Scores(*steps) for steps in itertools.product(ORIENTATIONS, SCALES, DIVISIONS, DEFAULT_MASKS)]


def _matches(scores: Scores, softmax: StudentCall, probes: tuple[tuple, ...], answers: list[Any]) -> bool:
    """Whether ``scores`` with the student's softmax gives the head's A on every probe it
    answered (a probe the head raised on proves nothing)."""
    for probe, answer in zip(probes, answers):
        if isinstance(answer, str):
            continue
        want = scores.weights(softmax, probe)
        if isinstance(want, str) or not close(answer, want):
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


def infer_attention_over(softmaxes: list[StudentCall], probes: AttentionProbes, answers: dict[str, list[Any]]) -> Finding:
    """attention's own wrong steps, with the student's softmax (called each way in
    ``softmaxes``: as ``softmax(s)`` and as ``softmax(s, axis=-1)``) in the lesson's place."""
    every = [*probes.moderate, *probes.large, *probes.masked]
    values = [*answers["moderate"], *answers["large"], *answers["masked"]]
    form = returned_form(every, values)
    if form is None:
        return Finding([], [])
    returns, combine = form
    own = {kind: [weights_of(value, returns) for value in answers[kind]] for kind in answers}
    explained: list[tuple[Step, ...]] = []
    for call in softmaxes:
        softmax = _remembered(call)
        alive = _first_stage()
        for stage in ("moderate", "large"):
            for probe, answer in zip(getattr(probes, stage), own[stage]):
                alive = [scores for scores in alive if _matches(scores, softmax, (probe,), [answer])]
        masked = [
            dataclasses.replace(scores, masking=masking)
            for scores in alive for masking in [*MASKINGS, AFTER_SOFTMAX]
            if _matches(dataclasses.replace(scores, masking=masking), softmax, probes.masked, own["masked"])
        ]
        explained += [scores.steps() for scores in masked]
    found = [step for step in (returns, combine) if not step.correct]
    wrong = shared_wrong(explained)
    if wrong is None:  # unexplained, or the lesson's steps explain it: only what it returns is named
        return Finding(found if explained else [], [])
    named = [step for step in wrong if step.mistake is not None]
    return Finding(found + named, [attention_sentence(step) for step in wrong if step.mistake is None])


def infer_self_attention_over(attention: StudentCall, probes: list[tuple], answers: list[Any]) -> Finding:
    """Which projections make Q, K and V, and whether the mask is passed on, with the
    student's own attention (``attention(Q, K, V)`` or ``attention(Q, K, V, mask)``)."""
    explanations = []
    for roles, passing in itertools.product(ROLE_ASSIGNMENTS, MASK_PASSING):
        names, passes = ROLE_ASSIGNMENTS[roles], MASK_PASSING[passing]
        fits = True
        for probe, answer in zip(probes, answers):
            X, Wq, Wk, Wv = probe[:4]
            mask = probe[4] if len(probe) > 4 and passes else None
            given = {"Wq": Wq, "Wk": Wk, "Wv": Wv}
            try:
                Q, K, V = (X if name == "X" else X @ given[name] for name in names)
            except ValueError:
                fits = False
                break
            want = attention(Q, K, V) if mask is None else attention(Q, K, V, mask)
            if isinstance(want, str) and isinstance(answer, str):
                continue
            if not close_pair(answer, want):
                fits = False
                break
        if fits:
            explanations.append((roles, passing))
    wrong = shared_wrong(explanations)
    return Finding([], []) if wrong is None else finding(wrong, "self_attention")
