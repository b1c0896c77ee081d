"""The known mistakes of one attention head: probes, variants and the inference wiring.

Each mistake is a variant of the reference that makes exactly that mistake, or a test
of the answers (see :mod:`grader.diagnoses` for how they are matched); where no variant
matches a function, :mod:`grader.assignments.attention_head.steps` works out what it
computes step by step.

To add a mistake: write its variant below and add a :class:`Mistake` to ``MISTAKES``
(and, if it is a step, its way of doing the step in ``steps.py``); then add a head with
that mistake to ``tests/heads/buggy/`` with a ``# diagnosis:`` line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grader.assignments.attention_head import helpers, reference, steps
from grader.assignments.attention_head.inputs import WORKED_QK, WORKED_V
from grader.diagnoses import (
    Answer,
    Inferred,
    Mistake,
    Mistakes,
    Probe,
    changes_its_inputs,
    fixed_matrix as matrix,
    identical,
    same,
)


SQUARE = (matrix(1, 3, 3), matrix(2, 3, 3), matrix(3, 3, 3))
CAUSAL_3 = np.tril(np.ones((3, 3), dtype=bool))
# Row 0 fully masked (its weights are nan), the others an arbitrary pattern.
PATTERN_3 = np.array([[False, False, False], [True, False, True], [False, True, True]])
# Each query sees itself and the keys after it: no row fully masked, and not causal.
ANTI_CAUSAL_3 = np.triu(np.ones((3, 3), dtype=bool))
# Close to the worked example and still with Q = K: a head that computes anything from its
# input answers it nearly as it answers the example; a hardcoded one does not.
NEAR_WORKED_QK = WORKED_QK * 1.25
# Sizes that tell the candidate divisors apart: d_k 9, d_v 3, 2 queries, 4 keys.
DISTINCT_SIZES = (matrix(21, 2, 9), matrix(22, 4, 9), matrix(23, 4, 3))

PROBES: dict[str, list[Probe]] = {
    "softmax": [
        Probe("softmax", (matrix(4, 3, 4, 2.0),)),
        Probe("softmax", (matrix(5, 3, 3, 2.0),)),
        Probe("softmax", (matrix(6, 2, 3, 2.0),), {"axis": 0}),
        Probe("softmax", (np.round(np.random.default_rng(7).normal(size=(2, 3, 4)), 1),), {"axis": 1}),
        Probe("softmax", (np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -999.0], [1000.0, 0.0, -1000.0]]),)),
        Probe("softmax", (np.array([[1000.0, 999.9, 999.8], [0.001, 0.002, 0.0]]),)),
    ],
    "attention": [
        Probe("attention", (WORKED_QK, WORKED_QK, WORKED_V)),
        Probe("attention", (matrix(8, 2, 4), matrix(9, 3, 4), matrix(10, 3, 5))),
        Probe("attention", SQUARE),
        Probe("attention", (*SQUARE, CAUSAL_3)),
        Probe("attention", (*SQUARE, PATTERN_3)),
        Probe("attention", (matrix(11, 2, 4, 30.0), matrix(12, 3, 4, 30.0), matrix(13, 3, 2))),
        Probe("attention", (NEAR_WORKED_QK, NEAR_WORKED_QK, WORKED_V)),
        Probe("attention", DISTINCT_SIZES),
        Probe("attention", (matrix(8, 2, 4), matrix(9, 3, 4), matrix(10, 3, 5))),  # the second, again
        # Every key masked for every query: a head that fills with a finite number shows it
        # here even when its softmax turns one fully masked row to nan as -inf would.
        Probe("attention", (*SQUARE, np.zeros((3, 3), dtype=bool))),
    ],
    "self_attention": [
        Probe("self_attention", (matrix(14, 3, 2), matrix(15, 2, 3), matrix(16, 2, 3), matrix(17, 2, 4))),
        Probe("self_attention", (matrix(14, 3, 2), matrix(15, 2, 3), matrix(16, 2, 3), matrix(17, 2, 4), CAUSAL_3)),
        # d_k = d_v: every assignment of the projections to Q, K and V runs, so each shows.
        Probe("self_attention", (matrix(14, 3, 2), matrix(15, 2, 3), matrix(16, 2, 3), matrix(24, 2, 3), CAUSAL_3)),
        # Square weights: a head that projects with W.T runs, and shows it.
        Probe("self_attention", (matrix(25, 3, 3), matrix(26, 3, 3), matrix(27, 3, 3), matrix(28, 3, 3), CAUSAL_3)),
        # 2·d_k + d_v divisible by 3 with d_k != d_v: three equal parts of a fused projection
        # run, and are not Q, K and V. The mask is not causal: an attention that applies a
        # causal mask by default then shows whether self_attention passes this one on.
        Probe("self_attention", (matrix(14, 3, 2), matrix(29, 2, 2), matrix(30, 2, 2), matrix(31, 2, 5), ANTI_CAUSAL_3)),
    ],
    "causal_mask": [Probe("causal_mask", (n,)) for n in (1, 2, 4)],
}


# -- variants of the reference head, one mistake each ------------------------------------


def _softmax_with(shift: Callable[[np.ndarray, int], Any], total: Callable[[np.ndarray, int], Any]) -> Callable:
    def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
        e = np.exp(x - shift(x, axis))
        return e / total(e, axis)

    return softmax


def _row_max(x: np.ndarray, axis: int) -> np.ndarray:
    return x.max(axis=axis, keepdims=True)


def _row_sum(e: np.ndarray, axis: int) -> np.ndarray:
    return e.sum(axis=axis, keepdims=True)


def _attention_with(
    *,
    scale: Callable[[np.ndarray, np.ndarray, np.ndarray], float] = lambda Q, K, V: np.sqrt(Q.shape[-1]),
    scores: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda Q, K: Q @ np.swapaxes(K, -1, -2),
    divide: Callable[[np.ndarray, float], np.ndarray] = lambda s, c: s / c,
    masked: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda s, m: np.where(m, s, -np.inf),
    after_softmax: Callable[[np.ndarray, np.ndarray | None], np.ndarray] = lambda A, m: A,
    default_mask: Callable[[np.ndarray], np.ndarray | None] = lambda s: None,
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda A, V: A @ V,
    returns: Callable[[np.ndarray, np.ndarray], Any] = lambda out, A: (out, A),
) -> Callable:
    """The reference attention with one step replaced."""

    def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> Any:
        s = divide(scores(Q, K), scale(Q, K, V))
        mask = default_mask(s) if mask is None else mask
        if mask is not None:
            s = masked(s, mask)
        A = after_softmax(reference.softmax(s, axis=-1), mask)
        return returns(combine(A, V), A)

    return attention


def _self_attention_with(project: Callable, attention: Callable = reference.attention) -> Callable:
    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803 - the lesson's names
        Q, K, V = project(X, Wq, Wk, Wv)
        return attention(Q, K, V, mask)

    return self_attention


def _rounded(decimals: int) -> Callable:
    return _attention_with(after_softmax=lambda A, m: np.round(A, decimals))


def _filled(value: float) -> Callable:
    return _attention_with(masked=lambda s, m: np.where(m, s, value))


def _only_the_worked_example(probes: list[Probe], answers: list[Answer], expected: list[Answer]) -> bool:
    """Right (to the lesson's 4 decimals) on the worked example, wrong on every other
    probe, and proven not to follow its input: on a symmetric input close to the example
    (which hides a mistake that only symmetric scores hide), it answers as it answered the
    example, or far from the lesson's answer."""
    pairs = list(zip(answers, expected))
    (worked, want_worked), (near, want_near) = pairs[0], pairs[NEAR_WORKED]
    if not same(worked.value, want_worked.value, atol=1e-2):
        return False
    if any(same(got.value, want.value) for got, want in pairs[1:]):
        return False
    ignores_input = same(near.value, worked.value, atol=1e-9)
    return ignores_input or not same(near.value, want_near.value, atol=5e-2)


def _answers_differ_on_repeat(probes: list[Probe], answers: list[Answer], _: list[Answer]) -> bool:
    """The same call, made twice, answered differently (bit for bit)."""
    first, again = answers[REPEATED], answers[AGAIN]
    return not identical(first.value, again.value)


# Where the probes above sit in PROBES["attention"].
NEAR_WORKED, REPEATED, AGAIN, FULLY_MASKED, ALL_MASKED = 6, 1, 8, 4, 9
FULLY_MASKED_ROW = 0  # of PATTERN_3


def _fully_masked_row(probes: list[Probe], answers: list[Answer]) -> str:
    """What this head gives a fully masked row: uniform weights, the row's weights with no
    mask at all, or other finite weights (a masked row's consequence, as the head's own
    answers show it). The row of the PATTERN_3 probe tells, unless the head's softmax makes
    it nan anyway; then the probe where every key is masked does."""
    Q, K, V, _ = probes[FULLY_MASKED].args
    row = _finite_row(answers[FULLY_MASKED].value, K.shape[0])
    if row is not None:
        if np.allclose(row, 1.0 / K.shape[0], rtol=1e-4, atol=1e-5):
            return "a fully masked row then becomes uniform weights instead of nan"
        unmasked = reference.attention(Q, K, V)[1][FULLY_MASKED_ROW]
        if np.allclose(row, unmasked, rtol=1e-4, atol=1e-5):
            return "a fully masked row then gets the weights it would have with no mask at all instead of nan"
        return "a fully masked row then gets finite weights instead of nan"
    row = _finite_row(answers[ALL_MASKED].value, K.shape[0])
    if row is None:
        return "a fully masked row is then not guaranteed to be nan"
    if np.allclose(row, 1.0 / K.shape[0], rtol=1e-4, atol=1e-5):
        return "when every key is masked, the weights then become uniform instead of nan"
    return "when every key is masked, the weights then stay finite instead of nan"


def _finite_row(value: Any, keys: int) -> np.ndarray | None:
    """Row FULLY_MASKED_ROW of the weights an answer ``(out, A)`` holds, if it is finite."""
    try:
        row = np.asarray(value[1], dtype=float)[FULLY_MASKED_ROW]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return row if row.shape == (keys,) and np.all(np.isfinite(row)) else None


def _raw_scores_output(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple:  # noqa: N803
    """The reference's weights, and an output made from the raw scores instead of them."""
    return (Q @ np.swapaxes(K, -1, -2)) @ V, reference.attention(Q, K, V, mask)[1]


def _scaled_after_softmax(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple:  # noqa: N803
    """softmax of the unscaled scores, then divided by sqrt(d_k)."""
    d_k = Q.shape[-1]
    A = reference.attention(Q * np.sqrt(d_k), K, V, mask)[1] / np.sqrt(d_k)  # Q·sqrt(d_k) undoes the lesson's scale
    return A @ V, A


def _lower_triangle(shape: tuple[int, ...]) -> np.ndarray:
    return np.tril(np.ones(shape, dtype=bool))


MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "softmax_wrong_axis",
        "softmax normalises along axis 0 (down the columns) when no axis is given, so the rows of A "
        "do not sum to 1. The lesson's softmax takes axis=-1 by default: each row, one query, is a "
        "distribution (section 1, 'softmax along the last axis').",
        "softmax",
        (lambda x, axis=0: reference.softmax(x, axis=axis),),
    ),
    Mistake(
        "softmax_ignores_axis",
        "softmax ignores its axis argument and always normalises the last axis. Use the axis it is "
        "given in both the max and the sum (section 2: x.max(axis=axis, ...), e.sum(axis=axis, ...)).",
        "softmax",
        (lambda x, axis=-1: reference.softmax(x, axis=-1),),
    ),
    Mistake(
        "softmax_no_max_shift",
        "softmax does not subtract each row's maximum before exp (or subtracts the minimum), so "
        "logits around 1000 overflow to inf and the row becomes nan. Subtracting the row max changes "
        "nothing mathematically and keeps every exp at most 1 (section 2, first note).",
        "softmax",
        (
            _softmax_with(lambda x, axis: 0.0, _row_sum),
            _softmax_with(lambda x, axis: x.min(axis=axis, keepdims=True), _row_sum),
        ),
    ),
    Mistake(
        "softmax_global_max",
        "softmax subtracts one maximum for the whole array instead of each row's own, so a row of "
        "small logits next to a row of large ones underflows to 0/0 = nan. Take the max along the "
        "axis with keepdims=True (section 2: x.max(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(lambda x, axis: x.max(), _row_sum),),
    ),
    Mistake(
        "softmax_global_normalization",
        "softmax divides by the sum of the whole array, so only the grand total is 1, not each row. "
        "Sum along the axis with keepdims=True (section 2: e.sum(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(_row_max, lambda e, axis: e.sum()),),
    ),
    Mistake(
        "softmax_no_keepdims",
        "softmax takes the max or the sum without keepdims=True, so the (n,) result broadcasts "
        "against the columns instead of the rows: it raises for non-square inputs and is wrong for "
        "square ones. Keep the reduced axis (section 2: keepdims=True in both places).",
        "softmax",
        (
            _softmax_with(lambda x, axis: x.max(axis=axis), lambda e, axis: e.sum(axis=axis)),
            _softmax_with(lambda x, axis: x.max(axis=axis), _row_sum),
            _softmax_with(_row_max, lambda e, axis: e.sum(axis=axis)),
        ),
    ),
    Mistake(
        "softmax_subtracts_mean",
        "softmax subtracts each row's mean instead of its maximum before exp: the mean does not bound "
        "the exponentials, so a row that spans about ±1000 overflows to inf and becomes nan, and so "
        "does a row holding -inf (a masked score). Subtract the row max: every exp is then at most 1 "
        "(section 2, first note).",
        "softmax",
        (_softmax_with(lambda x, axis: x.mean(axis=axis, keepdims=True), _row_sum),),
    ),
    Mistake(
        "softmax_reexpands_last_axis",
        "softmax reduces along the axis it is given but puts the reduced axis back as the last one "
        "([..., None]) instead of where it was, so only axis=-1 is right: for any other axis the max and "
        "the sum line up with the wrong entries, or do not broadcast at all. keepdims=True keeps the axis in its place "
        "(section 2: x.max(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(lambda x, axis: x.max(axis=axis)[..., None], lambda e, axis: e.sum(axis=axis)[..., None]),),
    ),
    Mistake(
        "softmax_normalizes_by_max",
        "softmax divides by the largest exponential instead of their sum, so rows do not sum to 1. "
        "Divide by the sum (section 2: e / e.sum(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(_row_max, lambda e, axis: e.max(axis=axis, keepdims=True)),),
    ),
    Mistake(
        "missing_scale",
        "attention's weights are those of unscaled scores: the scores are never divided by sqrt(d_k) before "
        "softmax (a factor applied after exp cancels when softmax normalises), so with large d_k the weights "
        "become nearly one-hot. The formula is softmax(Q K^T / sqrt(d_k)) V (section 1, 'Why divide by sqrt(d_k)?').",
        "attention",
        (_attention_with(scale=lambda Q, K, V: 1.0),),
    ),
    Mistake(
        "scale_by_dk",
        "attention divides the scores by d_k instead of sqrt(d_k). The dot product of d_k unit-variance "
        "terms has standard deviation sqrt(d_k), so that is what brings it back to O(1) "
        "(section 1, 'Why divide by sqrt(d_k)?').",
        "attention",
        (_attention_with(scale=lambda Q, K, V: Q.shape[-1]),),
    ),
    Mistake(
        "scale_precedence",
        "attention divides by d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2, not the "
        "square root. Write np.sqrt(d_k) or d_k ** 0.5 (section 2: / np.sqrt(d_k)).",
        "attention",
        (_attention_with(scale=lambda Q, K, V: Q.shape[-1] / 2),),
    ),
    Mistake(
        "scale_after_softmax",
        "attention divides the weights by sqrt(d_k) after softmax instead of the scores before it: the softmax "
        "sees unscaled scores, and the weights it made are then shrunk by sqrt(d_k). Scale the scores: "
        "softmax(Q K^T / sqrt(d_k)) (section 2: scores = (Q @ K.T) / np.sqrt(d_k)).",
        "attention",
        (_scaled_after_softmax,),
    ),
    Mistake(
        "scale_wrong_dim",
        "attention scales by the square root of the wrong size (d_v or a number of tokens) instead "
        "of d_k = Q.shape[-1], the length of the vectors in each dot product (section 2: "
        "d_k = Q.shape[-1]).",
        "attention",
        (
            _attention_with(scale=lambda Q, K, V: np.sqrt(V.shape[-1])),
            _attention_with(scale=lambda Q, K, V: np.sqrt(K.shape[0])),
            _attention_with(scale=lambda Q, K, V: np.sqrt(Q.shape[0])),
        ),
    ),
    Mistake(
        "keys_not_transposed",
        "attention multiplies Q @ K without transposing K: that raises unless d_k equals the number "
        "of keys, and is wrong even then. The scores are every query against every key, Q @ K.T, "
        "shape (n_q, n_k) (section 1, the shapes table).",
        "attention",
        (_attention_with(scores=lambda Q, K: Q @ K),),
    ),
    Mistake(
        "scores_transposed",
        "attention computes the scores as K @ Q.T, the transpose of Q @ K.T: row i then holds key i "
        "against every query instead of query i against every key, so each token's weights belong to "
        "another token (and the shapes fit only when there are as many queries as keys). The scores "
        "are Q @ K.T, shape (n_q, n_k) (section 1, the shapes table).",
        "attention",
        (_attention_with(scores=lambda Q, K: K @ np.swapaxes(Q, -1, -2)),),
    ),
    Mistake(
        "scores_wrong_key_index",
        "attention's scores pair each query with the key of its own index (Q[i] · K[i]) for every key j, "
        "so every score in a row is the same and each query spreads its weight evenly. Score i, j is "
        "query i against key j: Q[i] · K[j], that is Q @ K.T (section 1, the shapes table).",
        "attention",
        (_attention_with(scores=steps.own_index_scores),),
    ),
    Mistake(
        "weights_transposed",
        "attention returns A.T @ V instead of A @ V: row i of the output must average the value rows "
        "with query i's weights, row i of A (section 1: AV is (n, d_v)).",
        "attention",
        (_attention_with(combine=lambda A, V: A.T @ V),),
    ),
    Mistake(
        "output_uses_raw_scores",
        "attention computes its output from the raw scores, (Q @ K.T) @ V, instead of from the weights: "
        "the output must average the value rows with the weights A, out = A @ V (section 2: return A @ V, A).",
        "attention",
        (_raw_scores_output,),
    ),
    Mistake(
        "mask_after_softmax",
        "attention applies the mask after softmax, zeroing weights without renormalising: a masked row's "
        "remaining weights are not a distribution over the keys it may see. Mask the scores with -inf before "
        "softmax; softmax then renormalises over what survives (section 4, 'The masking happens to the logits, "
        "before the normalization').",
        "attention",
        (_attention_with(masked=lambda s, m: s, after_softmax=lambda A, m: A if m is None else np.where(m, A, 0.0)),),
    ),
    Mistake(
        "mask_zero_fill",
        "attention sets masked scores to 0 instead of -inf, and exp(0) = 1 is not zero weight: masked "
        "tokens still leak in. Use -np.inf, whose exp is exactly 0 (section 2, second note).",
        "attention",
        (_filled(0.0),),
    ),
    Mistake(
        "mask_inverted",
        "attention blocks the positions where the mask is True and keeps the False ones: the "
        "convention is the opposite, mask == False means weight 0 (section 2: "
        "np.where(mask, scores, -np.inf)).",
        "attention",
        (_attention_with(masked=lambda s, m: np.where(m, -np.inf, s)),),
    ),
    Mistake(
        "mask_added_not_filled",
        "attention adds the boolean mask to the scores (scores + mask), as code written for additive masks "
        "does: True counts as 1, so allowed keys get 1 added and nothing is masked. The lesson's mask says "
        "which keys each query may see: np.where(mask, scores, -np.inf) (section 2).",
        "attention",
        (_attention_with(masked=lambda s, m: s + m),),
    ),
    Mistake(
        "mask_always_causal",
        "attention ignores what the mask it is given says and applies a causal mask whenever one is given, "
        "so any other mask (padding, say) is wrong. Apply the mask as given: np.where(mask, scores, -np.inf) "
        "(section 2).",
        "attention",
        (_attention_with(masked=lambda s, m: np.where(_lower_triangle(s.shape), s, -np.inf)),),
    ),
    Mistake(
        "mask_transposed",
        "attention applies the mask transposed (mask.T), but mask[i, j] says whether query i may attend "
        "to key j: under a causal mask each token then sees itself and the tokens after it, not those "
        "before. Use the mask as it is given: np.where(mask, scores, -np.inf) (section 2).",
        "attention",
        (_attention_with(masked=lambda s, m: np.where(np.swapaxes(m, -1, -2), s, -np.inf)),),
    ),
    Mistake(
        "mask_ignored",
        "attention accepts a mask but never applies it, so a causal mask does not stop tokens from "
        "seeing the future (section 2: if mask is not None: scores = np.where(mask, scores, -np.inf)).",
        "attention",
        (_attention_with(masked=lambda s, m: s),),
    ),
    Mistake(
        "mask_large_negative",
        "attention gives masked scores a large negative number instead of -inf: {consequence}, hiding a "
        "broken mask (section 2, second note: 'A fully masked row yields nan; that's your signal you "
        "built the mask wrong').",
        "attention",
        tuple(_filled(value) for value in (-1e9, -1e10, -1e12, -1e30, np.finfo(np.float64).min)),
        consequence=_fully_masked_row,
    ),
    Mistake(
        "default_causal",
        "attention applies a causal mask when no mask is given; mask=None means every query sees every "
        "key (section 2: the mask is applied only 'if mask is not None').",
        "attention",
        (_attention_with(default_mask=lambda s: np.tril(np.ones(s.shape, dtype=bool))),),
    ),
    Mistake(
        "returns_swapped",
        "attention returns (A, out); the lesson's attention returns the pair (out, A), output first "
        "(section 2: return A @ V, A).",
        "attention",
        (_attention_with(returns=lambda out, A: (A, out)),),
    ),
    Mistake(
        "weights_not_returned",
        "attention returns only the output; it must return the pair (out, A), so the weights can be "
        "inspected (section 2: return A @ V, A).",
        "attention",
        (_attention_with(returns=lambda out, A: out),),
    ),
    Mistake(
        "rounds_weights",
        "attention rounds the weights, so they are off by up to half a unit in the last kept decimal "
        "and rows no longer sum exactly to 1. Round only when printing (section 3: np.round is for "
        "display).",
        "attention",
        tuple(_rounded(decimals) for decimals in (1, 2, 3, 4, 5)),
    ),
    Mistake(
        "floor_division",
        "attention scales the scores with floor division (//), which rounds every score down to a "
        "whole number. Use true division / (section 2: / np.sqrt(d_k)).",
        "attention",
        (_attention_with(divide=lambda s, c: s // c),),
    ),
    Mistake(
        "mutates_inputs",
        "attention changes the arrays it is given (an in-place operation such as Q /= ... on an "
        "argument), so the caller's Q, K or V are different after the call. Compute new arrays "
        "instead, as the lesson's (Q @ K.T) / np.sqrt(d_k) does (section 2).",
        "attention",
        shows_in=changes_its_inputs,
        beside_answers=True,
    ),
    Mistake(
        "hardcoded_example",
        "attention gives the right answer for the lesson's worked example and wrong answers for other "
        "inputs: it looks written for that one example. 'One hardcoded example proves little' "
        "(section 4): implement the formula for any Q, K, V.",
        "attention",
        shows_in=_only_the_worked_example,
    ),
    Mistake(
        "nondeterministic",
        "attention gives different answers to the very same call made twice: something in it is not "
        "computed from the inputs, such as an array from np.empty or np.empty_like that is read before "
        "every entry is written (it holds whatever memory was there), or randomness. Build results "
        "from the inputs alone, e.g. with np.zeros or from the formula directly (section 2).",
        "attention",
        shows_in=_answers_differ_on_repeat,
    ),
    Mistake(
        "causal_mask_upper",
        "causal_mask keeps the upper triangle (np.triu), letting each token see the future instead of "
        "the past. Token i may see j <= i: np.tril (section 2).",
        "causal_mask",
        (lambda n: np.triu(np.ones((n, n), dtype=bool)),),
    ),
    Mistake(
        "causal_mask_strict",
        "causal_mask leaves out the diagonal (np.tril(..., k=-1)), so no token may attend to itself "
        "and the first token's row is fully masked. Token i may see j <= i, itself included (section 2).",
        "causal_mask",
        (lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1),),
    ),
    Mistake(
        "causal_mask_allows_next",
        "causal_mask also keeps the entry just above the diagonal (np.tril(..., k=1)), so each token sees the "
        "next one: one step of the future leaks. Token i may see j <= i: np.tril with k=0 (section 2).",
        "causal_mask",
        (lambda n: np.tril(np.ones((n, n), dtype=bool), k=1),),
    ),
    Mistake(
        "causal_mask_inverted",
        "causal_mask marks the positions to hide (True above the diagonal, np.triu(..., k=1)); the lesson's "
        "mask marks the positions a token may see: True where j <= i (section 2: mask == False means "
        "weight 0).",
        "causal_mask",
        (lambda n: np.triu(np.ones((n, n), dtype=bool), k=1),),
    ),
    Mistake(
        "causal_mask_additive",
        "causal_mask returns an additive mask (0 where a token may attend, -inf or a large negative number "
        "elsewhere) instead of booleans: the lesson's attention reads mask == False as weight 0, so it needs "
        "True where j <= i (section 2: dtype=bool).",
        "causal_mask",
        tuple(
            (lambda n, fill=fill: np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, fill))
            for fill in (-np.inf, -1e9, -1e10)
        ),
    ),
    Mistake(
        "causal_mask_not_bool",
        "causal_mask returns numbers (0 and 1) instead of booleans; np.where(mask, ...) would treat "
        "any nonzero as True, but a mask is a bool array (section 2: dtype=bool).",
        "causal_mask",
        (lambda n: np.tril(np.ones((n, n))), lambda n: np.tril(np.ones((n, n), dtype=int))),
    ),
    Mistake(
        "self_attention_swapped_projections",
        "self_attention makes the queries with Wk and the keys with Wq. Q = X Wq is what each token "
        "looks for, K = X Wk what it offers (section 1, the shapes table).",
        "self_attention",
        (_self_attention_with(lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv)),),
        builds_on=("attention",),
    ),
    Mistake(
        "self_attention_drops_mask",
        "self_attention does not pass its mask on to attention, so a causal mask has no effect "
        "(section 2: return attention(X @ Wq, X @ Wk, X @ Wv, mask)).",
        "self_attention",
        (lambda X, Wq, Wk, Wv, mask=None: reference.attention(X @ Wq, X @ Wk, X @ Wv),),  # noqa: N803
        builds_on=("attention",),
    ),
    Mistake(
        "self_attention_transposes_weights",
        "self_attention projects with the transposed weights (X @ Wq.T and likewise): that raises unless the "
        "weights are square, and is wrong even then. Each weight matrix maps a token's d features to its "
        "query, key or value: Q = X @ Wq (section 1, the shapes table).",
        "self_attention",
        (_self_attention_with(lambda X, Wq, Wk, Wv: (X @ Wq.T, X @ Wk.T, X @ Wv.T)),),
        builds_on=("attention",),
    ),
    Mistake(
        "self_attention_equal_split",
        "self_attention multiplies X by Wq, Wk and Wv joined into one matrix and splits the result into three "
        "equal parts: that is Q, K and V only when d_k == d_v, and raises or mixes them otherwise. Split at "
        "d_k and 2·d_k, or project with each matrix: X @ Wq, X @ Wk, X @ Wv (section 1, the shapes table).",
        "self_attention",
        (_self_attention_with(lambda X, Wq, Wk, Wv: tuple(np.split(X @ np.concatenate([Wq, Wk, Wv], axis=-1), 3, axis=-1))),),
        builds_on=("attention",),
    ),
)

# Messages for a known mistake reached another way than its variants' (see steps.py).
INFERRED_MESSAGES = {
    "softmax_fixed_axis": (
        "softmax ignores its axis argument and always normalises {words}, whatever axis it is given: it is right "
        "only when that is the axis asked for. Use the axis it is given in both the max and the sum (section 2: "
        "x.max(axis=axis, ...), e.sum(axis=axis, ...))."
    ),
    "attention_softmax_axis": (
        "attention takes softmax down the columns of the scores (axis 0), so each column of A sums to 1 "
        "instead of each row. Each row, one query, is a distribution over the keys: softmax(scores, axis=-1) "
        "(section 1, 'softmax along the last axis')."
    ),
    "scale_precedence_inline": (
        "attention divides the scores by 2·d_k, as scores / d_k ** 1/2 does: Python reads it as "
        "(scores / d_k) / 2, not as a square root. Write np.sqrt(d_k) or d_k ** 0.5 (section 2: / np.sqrt(d_k))."
    ),
    "keys_reshaped": (
        "attention reshapes K to (d_k, n_k) instead of transposing it: reshape keeps the numbers in "
        "their order and only regroups them, so the columns are not the keys. Use K.T (or "
        "np.swapaxes(K, -1, -2)) (section 1, the shapes table: scores = Q @ K.T)."
    ),
    "weights_returned_transposed": (
        "attention returns its weights transposed, shape (n_k, n_q): row i of A must hold query i's "
        "weights over the keys, shape (n_q, n_k) (section 1, the shapes table)."
    ),
    "self_attention_roles": (
        "self_attention {words}: each projection has its own role, Q = X Wq (what each token "
        "looks for), K = X Wk (what it offers), V = X Wv (what it passes on) (section 1, the shapes table)."
    ),
}


# Which attention probes show what (see steps.infer_attention).
ATTENTION_STAGES = {"moderate": (0, 1, 2, NEAR_WORKED, 7), "large": (5,), "masked": (3, FULLY_MASKED, ALL_MASKED)}


def _student(call: Callable[[Probe], Answer], function: str, **kwargs: Any) -> Callable[..., Any]:
    """The head's own ``function``, called by the diagnosis: its answer, or RAISED."""
    return lambda *args: call(Probe(function, args, kwargs)).value


def _infer_attention(values: list[Any], call: Callable[[Probe], Answer], softmax_right: bool) -> steps.Finding:
    probes = PROBES["attention"]
    staged = steps.AttentionProbes(**{stage: tuple(probes[i].args for i in at) for stage, at in ATTENTION_STAGES.items()})
    answers = {stage: [values[i] for i in at] for stage, at in ATTENTION_STAGES.items()}
    if softmax_right:
        found = steps.infer_attention(staged, answers)
        if found.steps:
            return found
    # The head's own softmax in the lesson's place, as its attention may call it (also when
    # its mistakes are modelled here, but the lesson's model explains nothing).
    softmaxes = [_student(call, "softmax"), _student(call, "softmax", axis=-1)]
    over = helpers.infer_attention_over(softmaxes, staged, answers)
    return over if over.steps or not softmax_right else found


def _infer_softmax(values: list[Any], call: Callable[[Probe], Answer], _: bool) -> steps.Finding:
    return steps.infer_softmax(_SOFTMAX_PROBES, values)


def _infer_causal_mask(values: list[Any], call: Callable[[Probe], Answer], _: bool) -> steps.Finding:
    return steps.infer_causal_mask([probe.args[0] for probe in PROBES["causal_mask"]], values)


def _infer_self_attention(values: list[Any], call: Callable[[Probe], Answer], attention_right: bool) -> steps.Finding:
    probes = [probe.args for probe in PROBES["self_attention"]]
    if attention_right:
        found = steps.infer_self_attention(probes, values)
        if found.steps:
            return found
    over = helpers.infer_self_attention_over(_student(call, "attention"), probes, values)
    return over if over.steps or not attention_right else found


_SOFTMAX_PROBES = [(probe.args, probe.kwargs) for probe in PROBES["softmax"]]
# Each function the inference reads, with the functions it builds on: when those are right
# it is read against the lesson's model of them, else against the head's own (helpers.py).
INFERRED: dict[str, tuple[Inferred, tuple[str, ...]]] = {
    "softmax": (_infer_softmax, ()),
    "attention": (_infer_attention, ("softmax",)),  # a wrong softmax shows in attention too
    "self_attention": (_infer_self_attention, ("attention",)),
    "causal_mask": (_infer_causal_mask, ()),
}
# Softmax mistakes the attention model has steps for: attention may still be read then.
COVERED_BY_ATTENTION = frozenset({"softmax_no_max_shift", "softmax_wrong_axis"})

KNOWN = Mistakes(
    probes=PROBES,
    reference=reference.FUNCTIONS,
    mistakes=MISTAKES,
    inferred=INFERRED,
    inferred_messages=INFERRED_MESSAGES,
    modelled_downstream={"softmax": COVERED_BY_ATTENTION},
)


