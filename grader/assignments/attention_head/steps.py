"""What a head computes, step by step, worked out from its answers to the probes.

Each function is modelled as the lesson's steps, each step with the ways students get it
wrong (see :mod:`grader.diagnoses.inference` for how the answers are explained):

- softmax: the shift (row max, none, row min, row mean, the array's max, max without
  keepdims or put back as the last axis), the total (row sum, the array's sum, row max,
  sum without keepdims or put back as the last axis) and the axis (as given, 0 by
  default, always the last, always 0, always 1);
- attention: what it returns (``(out, A)``, swapped, A transposed), how ``out`` is made
  (``A @ V``, ``A.T @ V``, the raw scores ``Q K^T V``); then A step by step
  (:class:`Scores`): the scores (``Q K^T``, ``K Q^T``, ``Q K``, ``Q[i]·K[i]``, ``Q Q^T``,
  ``K K^T``), the factor they are divided by, true or floor division, or ``sqrt(d_k)``
  dividing the weights after softmax, a causal mask when none is given, which positions
  the mask lets through (as given, inverted, transposed, ignored, always causal) and what
  the others become (-inf, 0, a large negative number filled or added, the mask added as
  numbers, zero weight after softmax); then softmax along rows or columns, with or without
  the max shift, and rounding. The steps are searched in stages (moderate unmasked probes,
  then large logits, then masks), each on the probes where it shows;
- self_attention: which of Wq, Wk, Wv (or X itself) makes each of Q, K and V, how
  (``X @ W``, ``X @ W.T``, three equal parts of one fused projection), and whether the
  mask is passed on;
- causal_mask: which triangle it keeps, and how (booleans, numbers, an additive mask).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.authoring.steps import RAISED, Finding, Step, cached, close, evaluate, finding, lesson, ok, refused, shared_wrong
from grader.authoring.steps import KIND, Model, Stage, Ways, explain

# -- softmax ------------------------------------------------------------------------------

SHIFTS: dict[Step, Callable[[np.ndarray, int], Any]] = {
    ok("the row max"): lambda x, a: x.max(axis=a, keepdims=True),
    Step("nothing", "softmax_no_max_shift"): lambda x, a: 0.0,
    Step("the row min", "softmax_no_max_shift"): lambda x, a: x.min(axis=a, keepdims=True),
    Step("the row mean", "softmax_subtracts_mean"): lambda x, a: x.mean(axis=a, keepdims=True),
    Step("the array's max", "softmax_global_max"): lambda x, a: x.max(),
    Step("the max without keepdims", "softmax_no_keepdims"): lambda x, a: x.max(axis=a),
    Step("the max put back as the last axis", "softmax_reexpands_last_axis"): lambda x, a: x.max(axis=a)[..., None],
}
TOTALS: dict[Step, Callable[[np.ndarray, int], Any]] = {
    ok("the row sum"): lambda e, a: e.sum(axis=a, keepdims=True),
    Step("the array's sum", "softmax_global_normalization"): lambda e, a: e.sum(),
    # exp(x - max), undivided or divided by its largest entry (1): the same numbers either way.
    Step("no sum: its results are exp(x - max), each row's largest entry 1 (as dividing by the largest exponential "
         "gives)"): lambda e, a: e.max(axis=a, keepdims=True),
    Step("the sum without keepdims", "softmax_no_keepdims"): lambda e, a: e.sum(axis=a),
    Step("the sum put back as the last axis", "softmax_reexpands_last_axis"): lambda e, a: e.sum(axis=a)[..., None],
}
# The axes (given the axis asked for, and the input's dimensions) a softmax reduces over.
AXES: dict[Step, Callable[[int | None, int], Any]] = {
    ok("the axis given, -1 by default"): lambda given, ndim: -1 if given is None else given,
    Step("axis 0 (down the columns)", "softmax_wrong_axis"): lambda given, ndim: 0 if given is None else given,
    Step("axis 1", "softmax_wrong_axis"): lambda given, ndim: 1 if given is None else given,
    # if axis == -1: axis = 1, as if -1 were the second axis: it is the last only of a 2-D array.
    Step("axis 1 where it is given axis=-1 or none, though -1 means the last axis (axis 1 only of a 2-D "
         "array, axis 2 of a 3-D one)"): lambda given, ndim: 1 if given in (None, -1) else given,
    Step("axis 2 (a 2-D array has none: it raises)", "softmax_wrong_axis"): (
        lambda given, ndim: 2 if given is None else given
    ),
    # def softmax(x, axis=None): with no axis given, one max and one sum for the whole array.
    Step("the whole array by default", "softmax_default_axis_none"): lambda given, ndim: given,
    Step("always the last axis", "softmax_ignores_axis"): lambda given, ndim: -1,
    Step("axis 0", "softmax_fixed_axis"): lambda given, ndim: 0,
    Step("axis 1", "softmax_fixed_axis"): lambda given, ndim: 1,
    # A loop over the rows x[i], each normalised as a whole: the rows of a 2-D array, and every
    # axis but the first of any other (the axis given honoured on 2-D arrays, or not at all).
    Step("each x[i] as a whole, the axis given on 2-D arrays", "softmax_only_2d"): (
        lambda given, ndim: (-1 if given is None else given) if ndim == 2 else tuple(range(1, ndim)) or -1
    ),
    Step("each x[i] as a whole, whatever axis is given", "softmax_only_2d"): lambda given, ndim: tuple(range(1, ndim)) or -1,
}
ALWAYS_LAST, ALWAYS_1 = Step("always the last axis", "softmax_ignores_axis"), Step("axis 1", "softmax_fixed_axis")
ROWS_ALWAYS = next(step for step in AXES if step.words == "each x[i] as a whole, whatever axis is given")
# A softmax that raises on every input of more than two dimensions, and on no 2-D one.
ONLY_2D = Step("2-D input only", "softmax_only_2d")


def _softmax(ways: Ways, args: tuple, kwargs: dict) -> np.ndarray:
    """softmax made one way of each step, for a probe's (args, kwargs)."""
    x = np.copy(args[0])
    a = ways["axis"](kwargs.get("axis"), np.ndim(x))
    e = np.exp(x - ways["shift"](x, a))
    return e / ways["total"](e, a)


# Every probe shows every step: one stage, the product of the three tables. The answers are the
# same for every head, so each way's answer is worked out once per process.
SOFTMAX = Model(
    tables={"shift": SHIFTS, "total": TOTALS, "axis": AXES},
    stages=(Stage(("shift", "total", "axis")),),
    compute=_softmax,
    shared="attention_head.softmax",
)


# -- attention ----------------------------------------------------------------------------

ORIENTATIONS: dict[Step, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ok("Q @ K.T"): lambda Q, K: Q @ K.T,
    Step("K @ Q.T", "scores_transposed"): lambda Q, K: K @ Q.T,
    Step("Q @ K", "keys_not_transposed"): lambda Q, K: Q @ K,
    Step("Q @ K.reshape(d_k, n_k)", "keys_reshaped"): lambda Q, K: Q @ K.reshape(K.shape[1], K.shape[0]),
    Step("Q[i] · K[i] for every key j", "scores_wrong_key_index"): lambda Q, K: own_index_scores(Q, K),
    Step("Q @ Q.T"): lambda Q, K: Q @ Q.T,
    Step("K @ K.T"): lambda Q, K: K @ K.T,
}


def own_index_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """scores[i, j] = Q[i] · K[i], as a loop that indexes the key by the query's index
    computes: there is no K[i] past the last key."""
    if Q.shape[0] > K.shape[0]:
        raise ValueError("no key for every query")
    return np.repeat(np.sum(Q * K[: Q.shape[0]], axis=1)[:, None], K.shape[0], axis=1)


# Divisors in the sizes of a call: d_k, d_v, n_q (queries), n_k (keys), and d_model where the call
# is self_attention's (None for attention's).
SCALES: dict[Step, Callable[[int, int, int, int, int | None], float]] = {
    ok("sqrt(d_k)"): lambda dk, dv, nq, nk, dm: np.sqrt(dk),
    Step("1 (no scaling)", "missing_scale"): lambda dk, dv, nq, nk, dm: 1.0,
    Step("d_k", "scale_by_dk"): lambda dk, dv, nq, nk, dm: dk,
    Step("d_k / 2", "scale_precedence"): lambda dk, dv, nq, nk, dm: dk / 2,
    Step("2·d_k", "scale_by_2dk"): lambda dk, dv, nq, nk, dm: 2 * dk,
    Step("sqrt(d_v)", "scale_wrong_dim"): lambda dk, dv, nq, nk, dm: np.sqrt(dv),
    Step("sqrt(n_k)", "scale_wrong_dim"): lambda dk, dv, nq, nk, dm: np.sqrt(nk),
    Step("sqrt(n_q)", "scale_wrong_dim"): lambda dk, dv, nq, nk, dm: np.sqrt(nq),
    Step("1 / sqrt(d_k) (they are multiplied by sqrt(d_k))"): lambda dk, dv, nq, nk, dm: 1 / np.sqrt(dk),
    Step("sqrt(d_k) / 2"): lambda dk, dv, nq, nk, dm: np.sqrt(dk) / 2,
    Step("2·sqrt(d_k)"): lambda dk, dv, nq, nk, dm: 2 * np.sqrt(dk),
    Step("n_k, the number of keys (len(K)), instead of sqrt(d_k)"): lambda dk, dv, nq, nk, dm: nk,
    Step("d_v, the width of V, instead of sqrt(d_k)"): lambda dk, dv, nq, nk, dm: dv,
}
# A self_attention that computes attention itself may divide by the width of X.
D_MODEL_SCALES: dict[Step, Callable[[int, int, int, int, int | None], float]] = {
    Step("sqrt(d_model)", "scale_wrong_dim"): lambda dk, dv, nq, nk, dm: np.nan if dm is None else np.sqrt(dm),
    Step(
        "sqrt(d_k)·sqrt(d_model): besides sqrt(d_k), an extra factor 1/sqrt(d_model) on Q or K (a pre-scaled query)"
    ): lambda dk, dv, nq, nk, dm: np.nan if dm is None else np.sqrt(dk) * np.sqrt(dm),
}
DIVISIONS: dict[Step, Callable[[np.ndarray, float], np.ndarray]] = {
    ok("/"): lambda s, c: s / c,
    Step("//", "floor_division"): lambda s, c: s // c,
}
# What the divisor divides: the scores, or the weights softmax made of them.
SCALED: dict[Step, bool] = {
    ok("the scores"): False,
    Step("the weights, after softmax", "scale_after_softmax"): True,
}
NORMALISERS: dict[Step, int] = {
    ok("along each row"): -1,
    Step("down each column (axis 0)", "attention_softmax_axis"): 0,
}
ATTENTION_SHIFTS: dict[Step, bool] = {
    ok("with the max shift"): True,
    Step("without the max shift", "attention_no_max_shift"): False,
}
DEFAULT_MASKS: dict[Step, bool] = {
    ok("no mask when none is given"): False,
    Step("a causal mask when none is given", "default_causal"): True,
}
# Which positions the head lets through, read from the mask it is given (True: may attend).
MASK_READINGS: dict[Step, Callable[[np.ndarray, tuple[int, ...]], np.ndarray]] = {
    ok("the mask as given"): lambda m, shape: np.asarray(m, dtype=bool),
    Step("the mask inverted", "mask_inverted"): lambda m, shape: ~np.asarray(m, dtype=bool),
    Step("the mask transposed", "mask_transposed"): lambda m, shape: np.asarray(m, dtype=bool).T,
    Step("every position: the mask is ignored", "mask_ignored"): lambda m, shape: np.ones(shape, dtype=bool),
    Step("a causal mask, whatever mask is given", "mask_always_causal"): lambda m, shape: np.tril(np.ones(shape, dtype=bool)),
}
# What the scores of the positions not let through become, before softmax.
MASK_FILLS: dict[Step, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ok("-inf"): lambda s, allowed: np.where(allowed, s, -np.inf),
    Step("0", "mask_zero_fill"): lambda s, allowed: np.where(allowed, s, 0.0),
    Step("a large negative number", "mask_large_negative"): lambda s, allowed: np.where(allowed, s, -1e9),
    Step("a large negative number added", "mask_large_negative"): lambda s, allowed: s + np.where(allowed, 0.0, -1e9),
    # -1e10, as the widely copied GPT-2 in NumPy adds it: (1 - mask) * -1e10.
    Step("-1e10", "mask_large_negative"): lambda s, allowed: np.where(allowed, s, -1e10),
    Step("-1e10 added", "mask_large_negative"): lambda s, allowed: s + np.where(allowed, 0.0, -1e10),
    # A boolean mask added as numbers, as code written for additive masks does: nothing is masked.
    Step("the mask added to the scores", "mask_added_not_filled"): lambda s, allowed: s + allowed,
}
AFTER_SOFTMAX = Step("zero weight after softmax, not renormalised", "mask_after_softmax")
MASKINGS = [(reading, fill) for reading in MASK_READINGS for fill in [*MASK_FILLS, AFTER_SOFTMAX]]
ROUNDINGS: dict[Step, int | None] = {ok("not rounded"): None} | {
    Step(f"rounded to {decimals} decimals", "rounds_weights"): decimals for decimals in range(1, 6)
}


@dataclass(frozen=True)
class Scores:
    """One way of computing attention's scores and of applying its mask: everything of A
    but the softmax, which the lesson's model (:class:`Weights`) or the student's own
    softmax (:mod:`helpers`) then applies."""

    orientation: Step
    scale: Step
    division: Step
    default_mask: Step
    scaled: Step = lesson(SCALED)
    reading: Step = lesson(MASK_READINGS)
    fill: Step = lesson(MASK_FILLS)

    def steps(self) -> tuple[Step, ...]:
        return (self.orientation, self.scale, self.division, self.default_mask, self.scaled, self.reading, self.fill)

    def weights(self, softmax: Callable[[np.ndarray], Any], probe: tuple) -> Any:
        """A as this way computes it around ``softmax``; raises ValueError where it would."""
        Q, K, V = probe[:3]
        mask = probe[3] if len(probe) > 3 else None
        d_model = probe[4] if len(probe) > 4 else None  # the call is self_attention's
        nq, dk = Q.shape
        nk, dv = V.shape
        divisor = (SCALES | D_MODEL_SCALES)[self.scale](dk, dv, nq, nk, d_model)
        after_scale = SCALED[self.scaled]
        s = ORIENTATIONS[self.orientation](Q, K)
        if not after_scale:
            s = DIVISIONS[self.division](s, divisor)
        allowed = None
        if mask is not None:
            allowed = MASK_READINGS[self.reading](mask, s.shape)
        elif DEFAULT_MASKS[self.default_mask]:
            allowed = np.tril(np.ones(s.shape, dtype=bool))
        after_mask = self.fill is AFTER_SOFTMAX
        if allowed is not None and not after_mask:
            s = MASK_FILLS[self.fill](s, allowed)
        A = softmax(s)
        if isinstance(A, str):
            return A
        A = np.asarray(A, dtype=float)
        if allowed is not None and after_mask:
            A = np.where(allowed, A, 0.0)
        return DIVISIONS[self.division](A, divisor) if after_scale else A

    def masked(self, reading: Step, fill: Step) -> Scores:
        return dataclasses.replace(self, reading=reading, fill=fill)


def unmasked_scores(scales: Iterable[Step] = SCALES) -> list[Scores]:
    """Every way of computing the scores of an unmasked call (the masking is searched after)."""
    return [
        Scores(*steps) for steps in itertools.product(ORIENTATIONS, scales, DIVISIONS, DEFAULT_MASKS, SCALED)
        # Only sqrt(d_k) is searched after softmax: the named mistake is that divisor there.
        if not SCALED[steps[4]] or (steps[1].correct and steps[2].correct)
    ]


@dataclass(frozen=True)
class Weights:
    """One way of computing A with the lesson's softmax: the scores, then the softmax along
    rows or columns, with or without the max shift."""

    scores: Scores
    normaliser: Step
    shift: Step = lesson(ATTENTION_SHIFTS)

    def steps(self) -> tuple[Step, ...]:
        return (*self.scores.steps(), self.normaliser, self.shift)

    def softmax(self, s: np.ndarray) -> np.ndarray:
        axis = NORMALISERS[self.normaliser]
        e = np.exp(s - s.max(axis=axis, keepdims=True) if ATTENTION_SHIFTS[self.shift] else s)
        return e / e.sum(axis=axis, keepdims=True)

    def __call__(self, *probe: Any) -> np.ndarray:
        """A for a probe ``Q, K, V[, mask[, d_model]]``."""
        return self.scores.weights(self.softmax, probe)


@functools.cache
def _unmasked_weights(scales: tuple[Step, ...] = tuple(SCALES)) -> list[Weights]:
    return [Weights(scores, normaliser) for scores in unmasked_scores(scales) for normaliser in NORMALISERS]


# -- the three functions --------------------------------------------------------------------


def infer_softmax(probes: list[tuple[tuple, dict]], answers: list[Any]) -> Finding:
    """``probes`` as (args, kwargs) of softmax, ``answers`` the head's values. A probe the
    head raised on proves nothing of these steps (a softmax written for 2-D arrays raises on
    3-D ones): the others must show them."""
    if all(isinstance(answer, str) for answer in answers):  # it raised on every probe: nothing to read
        return Finding([], [])
    explanations = explain(SOFTMAX, probes, answers, prefer_alike=False)
    # A raise proves nothing of a step on its own, but a way that raises on exactly the 2-D
    # inputs where the head raised explains more of its answers than one that does not (on
    # other shapes a head may raise for code no step models: a loop over x[i], say).
    alike = [steps for steps in explanations if _softmax_raises_alike(steps, probes, answers)]
    explanations = alike or explanations
    # The last axis and axis 1 are one axis of a 2-D array: where the head answered no other
    # input, it is read as "always the last axis", the likelier code (and the same there); and
    # a loop over x[i] is one over the rows, which its raising on other shapes then says.
    only_2d = [ONLY_2D] if _raises_beyond_2d(probes, answers) else []
    explanations = [
        steps for steps in explanations
        if (steps[2] != ALWAYS_1 or (steps[0], steps[1], ALWAYS_LAST) not in explanations)
        and not (only_2d and steps[2].mistake == ONLY_2D.mistake)
    ]
    wrong = shared_wrong(explanations)
    if wrong is not None and ROWS_ALWAYS in wrong:  # on 2-D arrays, that is always the last axis
        wrong.append(ALWAYS_LAST)
    if wrong is not None or only_2d:
        return finding((wrong or []) + only_2d, "softmax uses")
    return Finding([], _softmax_facts(probes, answers))


def _softmax_raises_alike(steps: tuple[Step, ...], probes: list[tuple[tuple, dict]], answers: list[Any]) -> bool:
    return all(
        isinstance(_softmax_answer(steps, probe), str) == isinstance(answer, str)
        for probe, answer in zip(probes, answers) if np.ndim(probe[0][0]) == 2 and not refused(answer)
    )


def _raises_beyond_2d(probes: list[tuple[tuple, dict]], answers: list[Any]) -> bool:
    """Whether the head raised on every probe of more than two dimensions, and on no 2-D one."""
    ranks = [np.ndim(args[0]) for args, _ in probes]
    raised = [isinstance(answer, str) for answer in answers]
    beyond = [r for rank, r in zip(ranks, raised) if rank > 2]
    return bool(beyond) and all(beyond) and not any(r for rank, r in zip(ranks, raised) if rank == 2)


def _softmax_answer(steps: tuple[Step, ...], probe: tuple[tuple, dict]) -> Any:
    return SOFTMAX.answer_of(dict(zip(SOFTMAX.order(), steps)), probe)


def _softmax_facts(probes: list, answers: list[Any]) -> list[str]:
    for (args, kwargs), answer in zip(probes, answers):
        if isinstance(answer, str) or np.asarray(answer).shape != np.shape(args[0]):
            continue
        axis = kwargs.get("axis", -1)
        sums = np.sum(np.asarray(answer, dtype=float), axis=axis)
        if np.all(np.isfinite(sums)) and not np.allclose(sums, 1.0, atol=1e-4):
            sums_seen = ", ".join(f"{value:.4g}" for value in sums.ravel()[:4])
            return [f"softmax's results do not sum to 1 along the axis it is given: the sums are {sums_seen} on a {np.shape(args[0])} input."]
    return []


@dataclass(frozen=True)
class AttentionProbes:
    """The attention probes by what they show: moderate unmasked logits, large logits, masks."""

    moderate: tuple[tuple, ...]
    large: tuple[tuple, ...]
    masked: tuple[tuple, ...]


def infer_attention(
    probes: AttentionProbes, answers: dict[str, list[Any]], scales: tuple[Step, ...] = tuple(SCALES), facts: bool = True
) -> Finding:
    """``answers`` maps "moderate", "large", "masked" to the head's values for those probes;
    ``scales``: the divisors searched; ``facts``: whether to say what the answers show when
    no combination of steps explains them. Every way of returning (out, A) that fits the
    answers is searched (with square weights only, (out, A.T) and A.T @ V may both fit)."""
    every = [*probes.moderate, *probes.large, *probes.masked]
    values = [*answers["moderate"], *answers["large"], *answers["masked"]]
    if all(isinstance(value, str) for value in values):  # it raised on every probe: nothing to read
        return Finding([], [])
    forms = returned_forms(every, values)
    if not forms and _returned_in_order(every, values):
        # out is made some other way than from the A it returns: what the A returned for the
        # unmasked probes proves of the scores and the softmax stands (the mask's stage is not
        # read: a head may apply its mask to out alone).
        early = _early_mistakes(probes, answers, [(RETURNED, COMBINED)], scales, masked=False)
        return Finding(early, _form_facts(every, values) if facts else [])
    if not forms:
        return Finding([], _form_facts(every, values) if facts else [])
    explained = []
    for returns, combine in forms:
        for weights, steps in _explained_weights(probes, answers, returns, scales):
            explained.append(((returns, combine, *steps), _raises_alike(weights, every, values)))
    # A raise proves nothing of a step on its own (the head may fail after A), but a way that
    # raises exactly where the head raised explains more of its answers than one that does not.
    explained = [steps for steps, alike in explained if alike or not any(alike for _, alike in explained)]
    if not explained:  # what every form proves stands; A is said only where the head returns it
        early = _early_mistakes(probes, answers, forms, scales)
        if not facts:
            return Finding(early, [])
        found = [*(shared_wrong(forms) or []), *early]
        returns = forms[0][0]
        if early or len(forms) > 1 or returns is RETURNED_OUT:
            return Finding(found, [])
        return Finding(found, _weights_facts(probes.moderate, [weights_of(value, returns) for value in answers["moderate"]]))
    wrong = shared_wrong(explained)
    if wrong is None:  # A is the lesson's, and so is what it returns
        return Finding([], [])
    named = [step for step in wrong if step.mistake is not None]
    return Finding(named, [attention_sentence(step) for step in wrong if step.mistake is None])


def _early_mistakes(
    probes: AttentionProbes, answers: dict[str, list[Any]], forms: list[tuple[Step, Step]], scales: tuple[Step, ...],
    masked: bool = True,
) -> list[Step]:
    """The catalogued mistakes the unmasked probes alone prove: the moderate probes read the
    scores and the softmax's axis, which neither the max shift nor the mask changes, and the
    large ones the shift, which the mask does not change. With ``masked``, where a later
    stage (the large scores', the mask's) fits no way, what the stages before it prove;
    without, what the unmasked stages prove, the mask's stage unread. Every form must have
    such explanations."""
    every = [*probes.moderate, *probes.large, *probes.masked]
    early = []
    for returns, combine in forms:
        own = [weights_of(value, returns) for value in [*answers["moderate"], *answers["large"], *answers["masked"]]]
        model = _attention_model(returns, scales, probes)
        if not masked:
            model = dataclasses.replace(model, stages=model.stages[:2])
        found = explain(model, [(probe,) for probe in every], own, prefer_alike=False, as_far_as=masked)
        if not found:
            return []
        early += [(returns, combine, *steps) for steps in found]
    return [step for step in shared_wrong(early) or [] if step.mistake is not None]


def _returned_in_order(probes: list[tuple], values: list[Any]) -> bool:
    """Whether every answer is a pair of out's shape then A's, and some probe's shapes tell
    that order from (A, out) and from (out, A.T)."""
    answered = [(probe, value) for probe, value in zip(probes, values) if not isinstance(value, str)]
    return bool(answered) and all(_shaped(probe, value) for probe, value in answered) and any(
        len({probe[0].shape[0], probe[1].shape[0], probe[2].shape[1]}) == 3 for probe, _ in answered
    )


def _raises_alike(weights: Weights, probes: list[tuple], values: list[Any]) -> bool:
    return all(
        isinstance(cached(weights, probe, lambda: evaluate(weights, probe)), str) == isinstance(value, str)
        for probe, value in zip(probes, values) if not refused(value)
    )


def _explained_weights(
    probes: AttentionProbes, answers: dict[str, list[Any]], returns: Step, scales: tuple[Step, ...]
) -> list[tuple[Weights, tuple[Step, ...]]]:
    """The steps of every way of computing A that gives what the answers, returned as
    ``returns``, show of it: searched in stages (moderate logits, large ones, masks), then,
    where nothing explains them and they look rounded, with rounding on every probe."""
    own = {kind: [weights_of(value, returns) for value in answers[kind]] for kind in answers}
    every = [*probes.moderate, *probes.large, *probes.masked]
    every_own = [*own["moderate"], *own["large"], *own["masked"]]
    model = _attention_model(returns, scales, probes)
    # The search lists the steps stage by stage; a Weights lists the mask's before the softmax's.
    masked = [
        _weights((*scores, reading, fill, normaliser, shift))
        for *scores, normaliser, shift, reading, fill in explain(model, [(probe,) for probe in every], every_own, prefer_alike=False)
    ]
    if masked:
        return [(w, w.steps()) for w in masked]
    decimals = rounding_of(own["moderate"], returns)
    if decimals is None:
        return []
    rounding = next(step for step, places in ROUNDINGS.items() if places == decimals)
    return [(w, (*w.steps(), rounding)) for w in _all_stages(scales) if _matches(w, every, every_own, returns, decimals)]


def scores_table(scales: tuple[Step, ...]) -> dict[tuple[Step, ...], Scores]:
    """Every unmasked way of computing the scores, keyed by its five steps (the mask's two are searched after)."""
    return {scores.steps()[:5]: scores for scores in unmasked_scores(scales)}


def _attention_model(returns: Step, scales: tuple[Step, ...], probes: AttentionProbes) -> Model:
    """A with the lesson's softmax, as the answers returned as ``returns`` show it: the scores
    and the softmax's axis on moderate unmasked probes, the max shift on large ones, the mask
    on masked ones (indices into the three kinds of probes, in that order; each probe is
    passed whole, as its own argument)."""
    moderate, large = len(probes.moderate), len(probes.large)

    def shown(ways: Ways, probe: tuple) -> Any:
        weights = _weights((*ways["scores"].steps()[:5], *ways["masking"], ways["normaliser"], ways["shift"]))
        return as_answered(cached(weights, probe, lambda: evaluate(weights, probe)), probe, returns)

    return Model(
        tables={
            "scores": scores_table(scales), "normaliser": {step: step for step in NORMALISERS},
            "shift": {step: step for step in ATTENTION_SHIFTS}, "masking": {pair: pair for pair in MASKINGS},
        },
        stages=(
            Stage(("scores", "normaliser"), tuple(range(moderate))),
            Stage(("shift",), tuple(range(moderate, moderate + large))),
            Stage(("masking",), tuple(range(moderate + large, moderate + large + len(probes.masked)))),
        ),
        compute=shown,
    )


def _weights(steps: tuple[Step, ...]) -> Weights:
    """The way of computing A whose steps are the scores' five, the mask's two, the softmax's axis and its shift."""
    orientation, scale, division, default_mask, scaled, reading, fill, normaliser, shift = steps
    return Weights(Scores(orientation, scale, division, default_mask, scaled, reading, fill), normaliser, shift)


def attention_sentence(step: Step) -> str:
    scales = SCALES | D_MODEL_SCALES
    for table, phrase in ((ORIENTATIONS, "attention's scores are {}"), (scales, "attention divides its scores by {}")):
        if step in table:
            return phrase.format(step.words) + ", where the lesson computes Q @ K.T / sqrt(d_k)."
    return f"attention: {step.words}."


def rounding_of(weights: list[Any], returns: Step) -> int | None:
    """The decimals every finite weight is rounded to (1 to 5), if they all are (and the
    head returns its weights)."""
    if returns is RETURNED_OUT:
        return None
    values = np.concatenate([np.ravel(A) for A in weights if not isinstance(A, str)] or [np.zeros(0)])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    for decimals in range(1, 6):
        scaled = values * 10.0**decimals
        if np.allclose(scaled, np.round(scaled), atol=1e-6, rtol=0):
            return decimals
    return None


def _with_shift(weights: Weights, shift: Step) -> Weights:
    return dataclasses.replace(weights, shift=shift)


@functools.cache
def _all_stages(scales: tuple[Step, ...]) -> list[Weights]:
    """Rounding hides every other step from the staged search: try it on the likeliest heads."""
    return [_with_shift(w, shift) for w in _unmasked_weights(scales) for shift in ATTENTION_SHIFTS]


# Every id a step of attention may name (a self_attention that computes attention itself
# may make each of them, in its own code).
def _ids(*tables: Iterable[Step]) -> frozenset[str]:
    return frozenset(step.mistake for table in tables for step in table if step.mistake)


RETURNED = ok("(out, A)")
RETURNED_SWAPPED = Step("(A, out)", "returns_swapped")
RETURNED_TRANSPOSED = Step("(out, A.T)", "weights_returned_transposed")
RETURNED_OUT = Step("out alone", "weights_not_returned")
COMBINED = ok("A @ V")
COMBINED_TRANSPOSED = Step("A.T @ V", "weights_transposed")
COMBINED_RAW = Step("the scores @ V", "output_uses_raw_scores")


def returned_forms(probes: list[tuple], values: list[Any]) -> list[tuple[Step, Step]]:
    """Every way the head may return (out, A) and make out from its own A that fits every answer."""
    forms = []
    for returns in (RETURNED, RETURNED_SWAPPED, RETURNED_TRANSPOSED, RETURNED_OUT):
        # With out alone there is no A to see how out is made: the weights stages read out.
        for combine in (COMBINED,) if returns is RETURNED_OUT else (COMBINED, COMBINED_TRANSPOSED, COMBINED_RAW):
            if all(_fits_form(probe, value, returns, combine) for probe, value in zip(probes, values)):
                forms.append((returns, combine))
    return forms


def _fits_form(probe: tuple, value: Any, returns: Step, combine: Step) -> bool:
    if isinstance(value, str):
        return True  # raised: the weights stages say whether they should have
    Q, K, V = probe[:3]
    if returns is RETURNED_OUT:
        return not isinstance(value, tuple) and np.shape(value) == (Q.shape[0], V.shape[1])
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    out, A = (value[1], value[0]) if returns is RETURNED_SWAPPED else value
    try:
        out, A = np.asarray(out, dtype=float), np.asarray(A, dtype=float)
    except (TypeError, ValueError):
        return False
    if returns is RETURNED_TRANSPOSED:
        A = A.T
    if A.shape != (Q.shape[0], K.shape[0]) or out.shape != (Q.shape[0], V.shape[1]):
        return False
    if combine is COMBINED_RAW:
        with np.errstate(all="ignore"):
            return close(out, Q @ K.T @ V) or close(out, _masked_scores(probe) @ V)
    with np.errstate(all="ignore"):
        made = np.nan_to_num(A) @ V if combine is COMBINED else (np.nan_to_num(A).T @ V if A.shape[0] == A.shape[1] else None)
    if made is None:
        return False
    # A row of A that is not all finite (nan where a row is fully masked, inf where a wrong
    # softmax divides by nearly 0) makes its row of out whatever the arithmetic gives (with
    # A.T @ V, a column of A makes its row of out).
    rows_unread = ~np.isfinite(A).all(axis=-1 if combine is COMBINED else 0)
    return close(np.where(rows_unread[:, None], 0.0, out), np.where(rows_unread[:, None], 0.0, made))


def _masked_scores(probe: tuple) -> np.ndarray:
    """The lesson's scaled scores, masked with -inf, as an output made from them uses them."""
    Q, K = probe[:2]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    return s if len(probe) < 4 or probe[3] is None else np.where(probe[3], s, -np.inf)


def weights_of(value: Any, returns: Step) -> Any:
    """What an answer shows of A: A itself, or out when only out is returned (see :func:`as_answered`)."""
    if isinstance(value, str):
        return value
    if returns is RETURNED_OUT:
        return np.asarray(value, dtype=float)
    A = value[0] if returns is RETURNED_SWAPPED else value[1]
    A = np.asarray(A, dtype=float)
    return A.T if returns is RETURNED_TRANSPOSED else A


def tolerance(decimals: int | None) -> float:
    """How far a head's weight may be from a candidate's: the checks' tolerance, or half a
    unit in the last decimal a head that rounds keeps."""
    return 1e-5 if decimals is None else 0.5 * 10.0**-decimals + 1e-9


def as_answered(A: Any, probe: tuple, returns: Step) -> Any:
    """What a candidate's weights A would show in an answer returned as ``returns``."""
    if isinstance(A, str) or returns is not RETURNED_OUT:
        return A
    try:
        with np.errstate(all="ignore"):
            return np.asarray(A, dtype=float) @ probe[2]
    except ValueError:  # A of a shape V does not fit: such an attention would raise
        return RAISED


def _matches(
    weights: Weights, probes: Iterable[tuple], answers: list[Any], returns: Step, decimals: int | None = None
) -> bool:
    """Whether ``weights`` gives what the head's answers show of A on every probe the head
    answered (a call that raised may have failed after A, in code this model does not cover:
    it proves nothing)."""
    for probe, answer in zip(probes, answers):
        if isinstance(answer, str):
            continue
        want = as_answered(cached(weights, probe, lambda: evaluate(weights, probe)), probe, returns)
        if decimals is not None and not isinstance(want, str):
            want = np.round(want, decimals)
        if not close(answer, want, atol=tolerance(decimals)):
            return False
    return True


def _form_facts(probes: list[tuple], values: list[Any]) -> list[str]:
    """A probe where attention returns (out, A) of the right shapes and out is neither A @ V nor A.T @ V."""
    for probe, value in zip(probes, values):
        if not _fits_form(probe, value, RETURNED, COMBINED) and _shaped(probe, value):
            if not _fits_form(probe, value, RETURNED, COMBINED_TRANSPOSED):
                Q, K, V = probe[:3]
                return ["attention's output is not A @ V of the weights A it returns (nor A.T @ V), on a probe "
                        f"with Q {Q.shape}, K {K.shape}, V {V.shape}."]
    return []


def _shaped(probe: tuple, value: Any) -> bool:
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    Q, K, V = probe[:3]
    try:
        return np.shape(value[0]) == (Q.shape[0], V.shape[1]) and np.shape(value[1]) == (Q.shape[0], K.shape[0])
    except (TypeError, ValueError):
        return False


def _weights_facts(probes: tuple[tuple, ...], weights: list[Any]) -> list[str]:
    """One or two true sentences on the head's A for unmasked probes."""
    for probe, A in zip(probes, weights):
        if isinstance(A, str) or A.ndim != 2 or not np.all(np.isfinite(A)):
            continue
        rows, columns = A.sum(axis=1), A.sum(axis=0)
        if np.allclose(columns, 1.0, atol=1e-4) and not np.allclose(rows, 1.0, atol=1e-4):
            return ["attention's weights A have columns that sum to 1, not rows: each row, one query, must be a distribution."]
        if not np.allclose(rows, 1.0, atol=1e-4):
            sums_seen = ", ".join(f"{value:.4g}" for value in rows[:4])
            return [f"the rows of attention's weights A do not sum to 1 (they sum to {sums_seen} for Q {probe[0].shape})."]
    divisors = [_fitted_divisor(probe, A) for probe, A in zip(probes, weights)]
    known = [(probe, c) for probe, c in zip(probes, divisors) if c is not None]
    if len({probe[0].shape[1] for probe, _ in known}) >= 2:  # a ratio to d_k needs two d_k
        for size, words in ((lambda dk: 1.0, ""), (lambda dk: np.sqrt(dk), "·sqrt(d_k)"), (lambda dk: dk, "·d_k")):
            ratios = [c / size(probe[0].shape[1]) for probe, c in known]
            if max(ratios) - min(ratios) >= 1e-3 * max(ratios) or abs(ratios[0] - 1) <= 1e-3:
                continue
            if not words:  # the same number whatever d_k is, as a constant written for one example
                return [f"attention's scores look divided by {ratios[0]:.4g} whatever d_k is, where the lesson "
                        "divides by sqrt(d_k), d_k = Q.shape[-1]."]
            return [f"attention's scores look divided by {ratios[0]:.3g}{words}, where the lesson divides by sqrt(d_k)."]
    return []


def _fitted_divisor(probe: tuple, A: Any) -> float | None:
    """The c that makes A = softmax(Q K^T / c) row by row, if one does (A all positive)."""
    if isinstance(A, str) or A.ndim != 2 or np.any(~np.isfinite(A)) or np.any(A <= 0):
        return None
    Q, K = probe[0], probe[1]
    if A.shape != (Q.shape[0], K.shape[0]) or A.shape[1] < 2:
        return None
    logits = np.log(A) - np.log(A).mean(axis=1, keepdims=True)
    scores = Q @ K.T
    scores = scores - scores.mean(axis=1, keepdims=True)
    inverse = float(np.sum(logits * scores) / max(np.sum(scores * scores), 1e-12))
    if inverse <= 0 or not np.allclose(logits, scores * inverse, atol=1e-5, rtol=1e-4):
        return None
    return 1.0 / inverse


# -- causal_mask ----------------------------------------------------------------------------

TRIANGLES: dict[Step, Callable[[int], np.ndarray]] = {
    ok("j <= i"): lambda n: np.tril(np.ones((n, n), dtype=bool)),
    Step("j >= i", "causal_mask_upper"): lambda n: np.triu(np.ones((n, n), dtype=bool)),
    Step("j < i", "causal_mask_strict"): lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1),
    Step("j > i", "causal_mask_inverted"): lambda n: np.triu(np.ones((n, n), dtype=bool), k=1),
    Step("j <= i + 1", "causal_mask_allows_next"): lambda n: np.tril(np.ones((n, n), dtype=bool), k=1),
}
# How the mask says "may attend": each kind tells whether an answer is the triangle ``keep``.
KINDS: dict[Step, Callable[[np.ndarray, np.ndarray], bool]] = {
    ok("booleans"): lambda answer, keep: answer.dtype == bool and np.array_equal(answer, keep),
    Step("numbers", "causal_mask_not_bool"): lambda answer, keep: (
        answer.dtype != bool and np.array_equal(answer.astype(float), keep.astype(float))
    ),
    # 0 where a token may attend, -inf (or a number at most -1e9) where it may not.
    Step("0 and a large negative number (an additive mask)", "causal_mask_additive"): lambda answer, keep: (
        answer.dtype != bool and bool(np.all(np.where(keep, answer == 0, answer <= -1e9)))
    ),
}


def infer_causal_mask(sizes: list[int], answers: list[Any]) -> Finding:
    """Which triangle the mask keeps, and whether it holds booleans."""
    explanations = []
    for triangle, kind in itertools.product(TRIANGLES, KINDS):
        wanted = [TRIANGLES[triangle](n) for n in sizes]
        if all(_mask_is(answer, keep, KINDS[kind]) for answer, keep in zip(answers, wanted)):
            explanations.append((triangle, kind))
    wrong = shared_wrong(explanations)
    return Finding([], []) if wrong is None else finding(wrong, "causal_mask keeps")


def _mask_is(answer: Any, keep: np.ndarray, kind: Callable[[np.ndarray, np.ndarray], bool]) -> bool:
    if isinstance(answer, str):
        return False
    try:
        answer = np.asarray(answer)
        if answer.shape != keep.shape or answer.dtype == object or answer.dtype.kind not in "biuf":
            return False
        with np.errstate(all="ignore"):
            return bool(kind(answer, keep))
    except (TypeError, ValueError):
        return False


# -- self_attention ------------------------------------------------------------------------

IDENTITY = ("Wq", "Wk", "Wv")
SWAPPED = ("Wk", "Wq", "Wv")


def _role_words(names: tuple[str, ...]) -> str:
    return "computes " + ", ".join(f"{role} from {'X' if name == 'X' else 'X @ ' + name}" for role, name in zip("QKV", names))


def _role_step(names: tuple[str, ...]) -> Step:
    if names == IDENTITY:
        return ok(_role_words(names))
    if "X" in names:
        return Step(_role_words(names))
    return Step(_role_words(names), "self_attention_swapped_projections" if names == SWAPPED else "self_attention_mixed_projections")


# Which projection makes each of Q, K and V: any of the three in each role (a permutation,
# or one copied into two roles: (X @ W for W in (Wq, Wk, Wk))), and X itself in one role.
ROLE_ASSIGNMENTS: dict[Step, tuple[str, ...]] = {
    _role_step(names): names
    for names in [IDENTITY, *(names for names in itertools.product(IDENTITY, repeat=3) if names != IDENTITY), *(
        tuple("X" if index == slot else name for index, name in enumerate(IDENTITY)) for slot in range(3)
    )]
}
# How Q, K and V are made from X and the three weights given, once each has its role.
PROJECTIONS: dict[Step, Callable[[np.ndarray, list[np.ndarray]], list[np.ndarray]]] = {
    ok("projects X @ W"): lambda X, Ws: [X @ W for W in Ws],
    Step("projects with the transposed weights, X @ W.T", "self_attention_transposes_weights"): (
        lambda X, Ws: [X @ W.T for W in Ws]
    ),
    Step("splits X @ [Wq Wk Wv] into three equal parts", "self_attention_equal_split"): (
        lambda X, Ws: np.split(X @ np.concatenate(Ws, axis=-1), 3, axis=-1)
    ),
}
MASK_PASSING: dict[Step, bool] = {ok("passes the mask on"): True, Step("drops the mask", "self_attention_drops_mask"): False}


def projections() -> list[tuple[Step, Step]]:
    """The (roles, projection) pairs searched: every role assignment projected the lesson's
    way, and each other projection with the lesson's roles."""
    return [(roles, lesson(PROJECTIONS)) for roles in ROLE_ASSIGNMENTS] + [
        (lesson(ROLE_ASSIGNMENTS), projection) for projection in PROJECTIONS if not projection.correct
    ]


def project(roles: Step, projection: Step, X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray) -> list[np.ndarray]:  # noqa: N803
    """Q, K and V as ``roles`` and ``projection`` make them; raises ValueError where that would."""
    given = {"Wq": Wq, "Wk": Wk, "Wv": Wv}
    names = ROLE_ASSIGNMENTS[roles]
    if not projection.correct:
        return PROJECTIONS[projection](X, [given[name] for name in names])
    return [X if name == "X" else X @ given[name] for name in names]


def self_attention_model(attention: Callable[..., Any] | None = None) -> Model:
    """self_attention as its steps: which projections make Q, K and V (every role assignment
    projected the lesson's way, and each other projection with the lesson's roles: the pairs
    of :func:`projections`), and whether the mask is passed on; around the lesson's attention,
    or the student's own (``attention``, which answers RAISED where it raised)."""

    def self_attention(ways: Ways, X, Wq, Wk, Wv, mask=None):  # noqa: N803 - the lesson's names
        Q, K, V = project(*ways["projection"], X, Wq, Wk, Wv)
        mask = mask if ways["passing"] else None
        if attention is not None:
            return attention(Q, K, V) if mask is None else attention(Q, K, V, mask)
        A = _lesson_weights()(Q, K, V, mask)
        return A @ V, A

    return Model(
        tables={"projection": {pair: pair for pair in projections()}, "passing": MASK_PASSING},
        stages=(Stage(("projection", "passing")),),
        compute=self_attention,
        shared="attention_head.self_attention" if attention is None else None,
    )


SELF_ATTENTION = self_attention_model()


def infer_self_attention(probes: list[tuple], answers: list[Any]) -> Finding:
    """For a head whose attention is right: which projections make Q, K and V, and whether
    the mask is passed on to the lesson's attention. (A self_attention that computes
    attention itself is read as attention is: :func:`infer_attention` on its projections.)
    A raise is matched by a way that raises the same (a refusal by none)."""
    wrong = shared_wrong(explain(SELF_ATTENTION, probes, answers, prefer_alike=False, raises=KIND))
    return Finding([], []) if wrong is None else finding(wrong, "self_attention")


def _lesson_weights() -> Weights:
    return Weights(Scores(lesson(ORIENTATIONS), lesson(SCALES), lesson(DIVISIONS), lesson(DEFAULT_MASKS)), lesson(NORMALISERS))


def close_pair(got: Any, want: Any) -> bool:
    """The same answer of attention: a pair (out, A) equal in both parts, or else one array
    (an attention that returns only its output) equal to the other."""
    if isinstance(got, str) or isinstance(want, str) or not (isinstance(got, tuple) or isinstance(want, tuple)):
        return close(got, want)
    if not (isinstance(got, tuple) and isinstance(want, tuple) and len(got) == len(want) == 2):
        return False
    return all(close(a, b) for a, b in zip(got, want))


ATTENTION_STEP_IDS = _ids(
    ORIENTATIONS, SCALES, D_MODEL_SCALES, DIVISIONS, SCALED, NORMALISERS, ATTENTION_SHIFTS, DEFAULT_MASKS, MASK_READINGS,
    MASK_FILLS, [AFTER_SOFTMAX], ROUNDINGS, [RETURNED_SWAPPED, RETURNED_TRANSPOSED, RETURNED_OUT],
    [COMBINED_TRANSPOSED, COMBINED_RAW],
)
