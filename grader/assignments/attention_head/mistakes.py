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

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from grader.assignments.attention_head import ASSIGNMENT, reference, steps
from grader.assignments.attention_head import helpers as helpers_model
from grader.assignments.attention_head.inputs import WORKED_QK, WORKED_V
from grader.authoring.mistakes import Stub
from grader.authoring.mistakes import (
    RAISED,
    RIGHT,
    UNREADABLE,
    WRONG,
    Answer,
    BatchAxis,
    Evidence,
    Inferred,
    Mistake,
    Mistakes,
    Probe,
    StudentCall,
    changes_its_inputs,
    fixed_matrix as matrix,
    identical,
    same,
    values_read,
    weights,
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
        # A masked score: -inf must become weight 0, and the other entries stay finite.
        Probe("softmax", (np.array([[0.5, -np.inf, 1.5], [2.0, 1.0, 0.0]]),)),
        # A row of -inf only, as a fully masked row gives: nan, the lesson's signal of a broken mask.
        Probe("softmax", (np.array([[-np.inf, -np.inf, -np.inf], [1.0, 2.0, 3.0]]),)),
        # Three dimensions and no axis: the last one, whatever a 2-D array cannot tell apart.
        Probe("softmax", (np.round(np.random.default_rng(38).normal(size=(2, 3, 4)), 1),)),
        # axis=-1 said aloud: a softmax that reads -1 as axis 1 apart from one whose default is 1.
        Probe("softmax", (np.round(np.random.default_rng(39).normal(size=(2, 3, 4)), 1),), {"axis": -1}),
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
        # More queries than keys: scores that pair query i with key i cannot be made.
        Probe("attention", (matrix(32, 4, 3), matrix(33, 2, 3), matrix(34, 2, 2))),
        # One larger call, three times: randomness (dropout, noise) shows in 48 weights, where
        # two calls of a 3 x 3 head agree by chance about once in six.
        *[Probe("attention", (matrix(35, 6, 4), matrix(36, 8, 4), matrix(37, 8, 3))) for _ in range(3)],
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
        # For a self_attention that computes attention itself, read as attention is: sizes that tell
        # the divisors apart (n 2, d_model 5, d_k 3, d_v 4), large scores, and fully masked rows.
        Probe("self_attention", (matrix(39, 2, 5), matrix(40, 5, 3), matrix(41, 5, 3), matrix(42, 5, 4))),
        Probe("self_attention", (matrix(43, 3, 4, 6.0), matrix(44, 4, 2, 6.0), matrix(45, 4, 2, 6.0), matrix(46, 4, 2))),
        Probe("self_attention", (matrix(14, 3, 2), matrix(15, 2, 3), matrix(16, 2, 3), matrix(17, 2, 4), PATTERN_3)),
        Probe("self_attention", (matrix(14, 3, 2), matrix(15, 2, 3), matrix(16, 2, 3), matrix(17, 2, 4), np.zeros((3, 3), dtype=bool))),
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
    normalise: Callable[[np.ndarray], np.ndarray] = lambda s: reference.softmax(s, axis=-1),
) -> Callable:
    """The reference attention with one step replaced."""

    def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> Any:
        s = divide(scores(Q, K), scale(Q, K, V))
        mask = default_mask(s) if mask is None else mask
        if mask is not None:
            s = masked(s, mask)
        A = after_softmax(normalise(s), mask)
        return returns(combine(A, V), A)

    return attention


def _unmasked_weights_returned(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> Any:
    out, _ = reference.attention(Q, K, V, mask)
    return out, reference.attention(Q, K, V)[1]


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
    """The same call, made again, answered differently (bit for bit)."""
    return any(
        not identical(answers[first].value, answers[again].value) for first, *again_ in REPEATS for again in again_
    )


# Where the probes above sit in PROBES["attention"].
NEAR_WORKED, FULLY_MASKED, ALL_MASKED, MORE_QUERIES = 6, 4, 9, 10
REPEATS = ((1, 8), (11, 12, 13))  # the same call, made again
FULLY_MASKED_ROW = 0  # of PATTERN_3


def _fully_masked_row(function: str, masked: int, all_masked: int, unmasked: Callable[..., Any]) -> Callable[[Evidence], str]:
    """What this head gives a fully masked row: uniform weights, the row's weights with no
    mask at all, or other finite weights (a masked row's consequence, as the head's own
    answers show it). Row FULLY_MASKED_ROW of ``function``'s probe ``masked`` tells, unless
    the head's softmax makes it nan anyway; then its probe ``all_masked``, where every key
    is masked, does. ``unmasked`` gives the lesson's (out, A) for the probe's arguments
    without its mask."""

    def consequence(evidence: Evidence) -> str:
        probes, answers = evidence.probes[function], evidence.answers[function]
        *args, _ = probes[masked].args
        keys = np.shape(unmasked(*args)[1])[1]
        row = _finite_row(answers[masked].value, keys)
        if row is not None:
            if np.allclose(row, 1.0 / keys, rtol=1e-4, atol=1e-5):
                return "a fully masked row then becomes uniform weights instead of nan"
            if np.allclose(row, unmasked(*args)[1][FULLY_MASKED_ROW], rtol=1e-4, atol=1e-5):
                return "a fully masked row then gets the weights it would have with no mask at all instead of nan"
            return "a fully masked row then gets finite weights instead of nan"
        row = _finite_row(answers[all_masked].value, keys)
        if row is None:
            return "a fully masked row is then not guaranteed to be nan"
        if np.allclose(row, 1.0 / keys, rtol=1e-4, atol=1e-5):
            return "when every key is masked, the weights then become uniform instead of nan"
        return "when every key is masked, the weights then stay finite instead of nan"

    return consequence


def _finite_row(value: Any, keys: int) -> np.ndarray | None:
    """Row FULLY_MASKED_ROW of the weights an answer ``(out, A)`` holds, if it is finite."""
    if not isinstance(value, tuple) or len(value) != 2:
        return None
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


def _values(evidence: Evidence, function: str) -> list[Any]:
    return [answer.value for answer in evidence.answers.get(function, [])]


def _holds_nan(value: Any) -> bool:
    try:
        parts = value if isinstance(value, tuple) else (value,)
        return any(np.isnan(np.asarray(part, dtype=float)).any() for part in parts)
    except (TypeError, ValueError):
        return False


def _raised_where(evidence: Evidence, function: str, shapes_differ: Callable[[tuple], bool]) -> bool | None:
    """Whether the head raised on every probe of ``function`` whose arguments
    ``shapes_differ`` picks (None when no such probe was made)."""
    picked = [a.value for p, a in zip(evidence.probes[function], evidence.answers.get(function, [])) if shapes_differ(p.args)]
    return None if not picked else all(value is RAISED for value in picked)


def _holds_inf(value: Any) -> bool:
    try:
        parts = value if isinstance(value, tuple) else (value,)
        return any(np.isinf(np.asarray(part, dtype=float)).any() for part in parts)
    except (TypeError, ValueError):
        return False


def _overflows(evidence: Evidence) -> str:
    """What softmax's own answers show of logits around 1000."""
    large = [_values(evidence, "softmax")[i] for i in SOFTMAX_LARGE]
    if any(_holds_nan(value) for value in large):
        return ", so logits around 1000 overflow to inf and the row becomes nan"
    if any(_holds_inf(value) for value in large):
        return ", so logits around 1000 overflow to inf"
    return ""


def _mixed_rows_nan(evidence: Evidence) -> str:
    if _holds_nan(_values(evidence, "softmax")[SOFTMAX_LARGE[0]]):
        return ", so a row of small logits next to a row of large ones underflows to 0/0 = nan"
    return ""


def _mean_shift_nan(evidence: Evidence) -> str:
    values = _values(evidence, "softmax")
    said = []
    if any(_holds_nan(values[i]) for i in SOFTMAX_LARGE):
        said.append("a row that spans about ±1000 overflows to inf and gives nan")
    if _holds_nan(values[SOFTMAX_MASKED]):
        said.append("so does a row holding -inf (a masked score)" if said else "a row holding -inf (a masked score) becomes nan")
    return (", so " + ", and ".join(said)) if said else ""


def _attention_rows_not_distributions(evidence: Evidence) -> str:
    """Whether the head's own attention shows softmax's default axis: rows of A that do not sum to 1."""
    for value in _values(evidence, "attention")[:3]:
        A = weights(Answer(value))
        if A is not None and None not in np.ravel(np.array(A, dtype=object)) and not np.allclose(np.sum(A, axis=1), 1.0, atol=1e-4):
            return ", so the rows of attention's weights A do not sum to 1"
    return ""


def _raises_unless_square(
    function: str, picks: Callable[[tuple], bool], raised: str, otherwise: str, *partly: str
) -> Callable[[Evidence], str]:
    """A consequence: ``raised`` where the head raised on every probe of ``function`` that
    ``picks`` (arguments of the shapes the mistake cannot take), ``partly[0]`` (if given)
    where it raised on some of them, else ``otherwise``."""

    def consequence(evidence: Evidence) -> str:
        picked = [answer.value is RAISED for probe, answer in zip(evidence.probes[function], evidence.answers.get(function, []))
                  if picks(probe.args)]
        if picked and all(picked):
            return raised
        return partly[0] if partly and any(picked) else otherwise

    return consequence


def _raised_beyond_2d(evidence: Evidence) -> str:
    """What softmax did with an input of more than two dimensions: raised, or normalised
    each x[i] as a whole."""
    for probe, answer in zip(evidence.probes["softmax"], evidence.answers.get("softmax", [])):
        if np.ndim(probe.args[0]) <= 2:
            continue
        given = f" and axis={probe.kwargs['axis']}" if "axis" in probe.kwargs else ""
        if answer.value is RAISED:
            return f"it raised {answer.raised or 'an exception'} on an input of shape {np.shape(probe.args[0])}{given}"
        x = probe.args[0]
        e = np.exp(x - x.max(axis=tuple(range(1, x.ndim)), keepdims=True))
        if same(answer.value, e / e.sum(axis=tuple(range(1, x.ndim)), keepdims=True)):
            return (
                f"on an input of shape {np.shape(x)}{given} it raises nothing but normalises each x[i] as a whole, "
                "not along the axis asked for"
            )
    return "its results on an input of more than two dimensions are wrong"


def _batch_raise(function: str, arrays: tuple[str, ...]) -> Callable[[Evidence], str]:
    """What a function written for a batch axis (or a batch and a heads axis) raised on the
    lesson's 2-D inputs, and the inputs it answers."""

    def consequence(evidence: Evidence) -> str:
        first = next(iter(evidence.unbatched.get(function, [])), Answer(RAISED))
        raised = first.raised or "an exception"
        how = ""
        if "axes don't match array" in first.text:
            how = " (as K.transpose(0, 2, 1) does on a 2-D K)"
        axes = evidence.batch_axes.get(function, 1)
        given = "a batch of one" if axes == 1 else "a batch of one and one head, (batch, heads, n, d) arrays"
        index = "[None]" if axes == 1 else "[None, None]"
        return f"it raised {raised} on the lesson's 2-D inputs{how}, and answers when given {given} ({', '.join(name + index for name in arrays)})"

    return consequence


def _other_axes(evidence: Evidence) -> str:
    """What softmax did with an axis other than the last: raised, or gave wrong results."""
    raised = [
        answer.value is RAISED for probe, answer in zip(evidence.probes["softmax"], evidence.answers.get("softmax", []))
        if probe.kwargs.get("axis", -1) not in (-1, np.ndim(probe.args[0]) - 1)
    ]
    if raised and all(raised):
        return "it raises"
    return "it raises or gives wrong results" if any(raised) else "the max and the sum line up with the wrong entries"


def _overflow_of(function: str, large: tuple[int, ...]) -> Callable[[Evidence], str]:
    """What ``function``'s answers to its ``large`` probes show of an exp with no max shift."""

    def consequence(evidence: Evidence) -> str:
        values = _values(evidence, function)
        if any(_holds_nan(values[i]) for i in large):
            return ", so large scores overflow to inf and their row becomes nan"
        if any(_holds_inf(values[i]) for i in large):
            return ", so large scores overflow to inf"
        return ""

    return consequence


def _lower_triangle(shape: tuple[int, ...]) -> np.ndarray:
    return np.tril(np.ones(shape, dtype=bool))


# softmax's mistakes that an attention calling it (however: softmax(s.T).T, say) may show as its own.
SOFTMAX_AXIS_MISTAKES = (
    "softmax_wrong_axis", "softmax_ignores_axis", "softmax_fixed_axis", "softmax_default_axis_none", "softmax_only_2d",
    "softmax_reexpands_last_axis",
)
SOFTMAX_SHIFT_MISTAKES = ("softmax_no_max_shift", "softmax_subtracts_mean", "softmax_global_max")

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "softmax_wrong_axis",
        "softmax normalises along {words} when no axis is given{consequence}. The lesson's "
        "softmax takes axis=-1 by default: each row, one query, is a distribution (section 1, 'softmax along "
        "the last axis').",
        "softmax",
        (lambda x, axis=0: reference.softmax(x, axis=axis),),
        consequence=_attention_rows_not_distributions,
        words="axis 0 (down the columns)",
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
        "softmax does not subtract each row's maximum before exp (or subtracts the minimum){consequence}. "
        "Subtracting the row max changes nothing mathematically and keeps every exp at most 1 (section 2, "
        "first note).",
        "softmax",
        (
            _softmax_with(lambda x, axis: 0.0, _row_sum),
            _softmax_with(lambda x, axis: x.min(axis=axis, keepdims=True), _row_sum),
        ),
        consequence=_overflows,
    ),
    Mistake(
        "softmax_global_max",
        "softmax subtracts one maximum for the whole array instead of each row's own{consequence}. Take the "
        "max along the axis with keepdims=True (section 2: x.max(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(lambda x, axis: x.max(), _row_sum),),
        consequence=_mixed_rows_nan,
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
        "against the columns instead of the rows: {consequence}. Keep the reduced axis (section 2: "
        "keepdims=True in both places).",
        "softmax",
        (
            _softmax_with(lambda x, axis: x.max(axis=axis), lambda e, axis: e.sum(axis=axis)),
            _softmax_with(lambda x, axis: x.max(axis=axis), _row_sum),
            _softmax_with(_row_max, lambda e, axis: e.sum(axis=axis)),
        ),
        consequence=_raises_unless_square(
            "softmax", lambda args: args[0].ndim == 2 and args[0].shape[0] != args[0].shape[1],
            "it raises for non-square inputs and is wrong for square ones",
            "its results are wrong (and some non-square inputs make it raise)",
            "its results are wrong",
        ),
    ),
    Mistake(
        "softmax_subtracts_mean",
        "softmax subtracts each row's mean instead of its maximum before exp: the mean does not bound "
        "the exponentials{consequence}. Subtract the row max: every exp is then at most 1 (section 2, first note).",
        "softmax",
        (_softmax_with(lambda x, axis: x.mean(axis=axis, keepdims=True), _row_sum),),
        consequence=_mean_shift_nan,
    ),
    Mistake(
        "softmax_reexpands_last_axis",
        "softmax is right only along the last axis: for any other axis it is given, {consequence}, as when the "
        "reduced axis is put back as the last one ([..., None]) instead of where it was. keepdims=True keeps the "
        "axis in its place (section 2: x.max(axis=axis, keepdims=True)).",
        "softmax",
        (_softmax_with(lambda x, axis: x.max(axis=axis)[..., None], lambda e, axis: e.sum(axis=axis)[..., None]),),
        consequence=_other_axes,
    ),
    Mistake(
        "softmax_fixed_axis",
        "softmax ignores its axis argument and always normalises {words}, whatever axis it is given: it is right "
        "only when that is the axis asked for. Use the axis it is given in both the max and the sum (section 2: "
        "x.max(axis=axis, ...), e.sum(axis=axis, ...)).",
        "softmax",
    ),
    Mistake(
        "softmax_default_axis_none",
        "softmax normalises over the whole array when no axis is given (its axis defaults to None): one max "
        "and one sum for every entry, so only the grand total is 1, not each row. The lesson's softmax takes "
        "axis=-1 by default (section 2: def softmax(x, axis=-1)).",
        "softmax",
        (lambda x, axis=None: _softmax_with(_row_max, _row_sum)(x, axis),),
    ),
    Mistake(
        "softmax_only_2d",
        "softmax is right on 2-D arrays but not on arrays of more than two dimensions: {consequence}. The "
        "lesson's softmax works on an array of any "
        "shape, along the axis it is given (section 2: x.max(axis=axis, keepdims=True), and no x[i] or x.T).",
        "softmax",
        consequence=_raised_beyond_2d,
    ),
    Mistake(
        "attention_softmax_axis",
        "attention takes softmax down the columns of the scores (axis 0), so each column of A sums to 1 "
        "instead of each row. Each row, one query, is a distribution over the keys: softmax(scores, axis=-1) "
        "(section 1, 'softmax along the last axis').",
        "attention",
        (_attention_with(normalise=lambda s: reference.softmax(s, axis=0)),),
        builds_on=("softmax",),  # a softmax that defaults to axis 0 does this to a right attention
        echoes=SOFTMAX_AXIS_MISTAKES,
    ),
    Mistake(
        "attention_no_max_shift",
        "attention computes softmax itself (exp of the scores, divided by their sum) without subtracting each "
        "row's maximum first{consequence}. Call softmax(scores, axis=-1), or subtract the row max before exp "
        "(section 2, first note).",
        "attention",
        (_attention_with(normalise=_softmax_with(lambda x, axis: 0.0, _row_sum)),),
        builds_on=("softmax",),  # a softmax without the shift does this to a right attention
        consequence=_overflow_of("attention", (5,)),
        echoes=SOFTMAX_SHIFT_MISTAKES,
    ),
    Mistake(
        "missing_scale",
        "attention's weights are those of unscaled scores: the scores are never divided by sqrt(d_k) before "
        "softmax (a factor applied after exp cancels when softmax normalises), so with large d_k the weights "
        "become nearly one-hot under softmax. The formula is softmax(Q K^T / sqrt(d_k)) V (section 1, 'Why divide by sqrt(d_k)?').",
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
        "scale_by_2dk",
        "attention divides the scores by 2·d_k, as scores / d_k ** 1/2 does: Python reads it as "
        "(scores / d_k) / 2, not as a square root. Write np.sqrt(d_k) or d_k ** 0.5 (section 2: / np.sqrt(d_k)).",
        "attention",
        (_attention_with(scale=lambda Q, K, V: 2 * Q.shape[-1]),),
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
        "attention scales by the square root of the wrong size (d_v, d_model or a number of tokens) instead "
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
        "attention multiplies Q @ K without transposing K: {consequence}. The scores are every query "
        "against every key, Q @ K.T, shape (n_q, n_k) (section 1, the shapes table).",
        "attention",
        (_attention_with(scores=lambda Q, K: Q @ K),),
        consequence=_raises_unless_square(
            "attention", lambda args: args[0].shape[1] != args[1].shape[0],
            "that raises unless d_k equals the number of keys, and is wrong even then", "that is wrong",
        ),
    ),
    Mistake(
        "keys_reshaped",
        "attention reshapes K to (d_k, n_k) instead of transposing it: reshape keeps the numbers in "
        "their order and only regroups them, so the columns are not the keys. Use K.T (or "
        "np.swapaxes(K, -1, -2)) (section 1, the shapes table: scores = Q @ K.T).",
        "attention",
        (_attention_with(scores=lambda Q, K: Q @ K.reshape(K.shape[1], K.shape[0])),),
    ),
    Mistake(
        "scores_transposed",
        "attention computes the scores as K @ Q.T, the transpose of Q @ K.T: row i then holds key i "
        "against every query instead of query i against every key, so each token's weights belong to "
        "another token{consequence}. The scores are Q @ K.T, shape (n_q, n_k) (section 1, the shapes table).",
        "attention",
        (_attention_with(scores=lambda Q, K: K @ np.swapaxes(Q, -1, -2)),),
        consequence=_raises_unless_square(
            "attention", lambda args: args[0].shape[0] != args[1].shape[0],
            " (and the shapes fit only when there are as many queries as keys)", "",
        ),
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
        "attention computes its output from the scores, (Q @ K.T) @ V (scaled or not), instead of from the weights: "
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
        "attention's masked scores behave as a large negative number would, not as -inf: {consequence}, hiding a "
        "broken mask (section 2, second note: 'A fully masked row yields nan; that's your signal you "
        "built the mask wrong').",
        "attention",
        tuple(_filled(value) for value in (-1e9, -1e10, -1e12, -1e30, np.finfo(np.float64).min)),
        consequence=_fully_masked_row("attention", FULLY_MASKED, ALL_MASKED, reference.attention),
    ),
    Mistake(
        "default_causal",
        "attention applies a causal mask when no mask is given; mask=None means every query sees every "
        "key (section 2: the mask is applied only 'if mask is not None').",
        "attention",
        (_attention_with(default_mask=lambda s: np.tril(np.ones(s.shape, dtype=bool))),),
    ),
    Mistake(
        "attention_needs_batch_axis",
        "attention is written for a leading batch axis: {consequence}. The lesson's attention takes 2-D (n, d) "
        "arrays: transpose K's last two axes, np.swapaxes(K, -1, -2), which works with or without a batch axis "
        "(K.T on 2-D inputs only) (section 2, third note: 'No batch dimension, on purpose').",
        "attention",
        consequence=_batch_raise("attention", ("Q", "K", "V")),
    ),
    Mistake(
        "returns_swapped",
        "attention returns (A, out); the lesson's attention returns the pair (out, A), output first "
        "(section 2: return A @ V, A).",
        "attention",
        (_attention_with(returns=lambda out, A: (A, out)),),
    ),
    Mistake(
        "weights_returned_transposed",
        "attention returns its weights transposed, shape (n_k, n_q): row i of A must hold query i's "
        "weights over the keys, shape (n_q, n_k) (section 1, the shapes table).",
        "attention",
        (_attention_with(returns=lambda out, A: (out, A.T)),),
    ),
    Mistake(
        "weights_returned_unmasked",
        "attention returns the weights from before the mask: its out uses the masked weights, but the A it "
        "returns is softmax of the unmasked scores, so A shows weight on keys the mask hides. Return the A that "
        "made out (section 2: return A @ V, A).",
        "attention",
        (_unmasked_weights_returned,),
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
        "attention changes the arrays it is given (an in-place operation on an argument, such as "
        "Q /= ...), so the caller's {consequence} different after the call. Compute new arrays "
        "instead, as the lesson's (Q @ K.T) / np.sqrt(d_k) does (section 2).",
        "attention",
        shows_in=changes_its_inputs,
        beside_answers=True,
        consequence=lambda evidence: _changed_arguments(evidence, "attention"),
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
        "causal_mask marks the positions to hide (True, or 1, above the diagonal: np.triu(..., k=1)); the lesson's "
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
        "self_attention makes the queries with Wk and the keys with Wq (or, computing attention itself, takes the "
        "scores as K @ Q.T: the same numbers). Q = X Wq is what each token looks for, K = X Wk what it offers "
        "(section 1, the shapes table).",
        "self_attention",
        (_self_attention_with(lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv)),),
        builds_on=("attention",),
    ),
    Mistake(
        "self_attention_needs_batch_axis",
        "self_attention is written for a leading batch axis: {consequence}. The lesson's self_attention takes a "
        "2-D X, (n, d_model): project with X @ Wq and transpose with np.swapaxes(..., -1, -2), which works with "
        "or without a batch axis (.T on 2-D arrays only) (section 2, third note: 'No batch dimension, on purpose').",
        "self_attention",
        consequence=_batch_raise("self_attention", ("X",)),
    ),
    Mistake(
        "self_attention_mixed_projections",
        "self_attention {words}: each projection has its own role, Q = X Wq (what each token "
        "looks for), K = X Wk (what it offers), V = X Wv (what it passes on) (section 1, the shapes table).",
        "self_attention",
    ),
    Mistake(
        "self_attention_drops_mask",
        "self_attention does not apply its mask (it does not pass it on to attention, or ignores it where it "
        "computes attention itself), so a causal mask has no effect (section 2: return attention(X @ Wq, X @ Wk, "
        "X @ Wv, mask)).",
        "self_attention",
        (lambda X, Wq, Wk, Wv, mask=None: reference.attention(X @ Wq, X @ Wk, X @ Wv),),  # noqa: N803
        builds_on=("attention",),
    ),
    Mistake(
        "self_attention_transposes_weights",
        "self_attention projects with the transposed weights (X @ Wq.T and likewise): {consequence}. Each "
        "weight matrix maps a token's d features to its query, key or value: Q = X @ Wq (section 1, the "
        "shapes table).",
        "self_attention",
        (_self_attention_with(lambda X, Wq, Wk, Wv: (X @ Wq.T, X @ Wk.T, X @ Wv.T)),),
        builds_on=("attention",),
        consequence=_raises_unless_square(
            "self_attention", lambda args: any(W.shape[0] != W.shape[1] for W in args[1:4]),
            "that raises unless the weights are square, and is wrong even then", "that is wrong",
        ),
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


# -- a self_attention that computes attention itself -----------------------------------------

# Said of what self_attention's answers prove, whether it computes attention in its own code
# or changes something on the way to calling attention (a causal default, a factor on Q).
INLINE_SUBJECT = "self_attention does not return attention(X @ Wq, X @ Wk, X @ Wv, mask): on the way, "
# Where self_attention's probes show large scores, and a fully masked row (the last two).
SA_LARGE, SA_FULLY_MASKED, SA_ALL_MASKED = 6, 7, 8


def inline_id(mistake: str) -> str:
    """The id of attention's step ``mistake`` made in self_attention's own attention code."""
    if mistake == "mask_ignored":
        return "self_attention_drops_mask"
    return "self_attention_" + mistake.removeprefix("attention_")


def _inline_message(message: str) -> str:
    """attention's message (a mistake's, or an observed sentence), said of what self_attention
    does on the way to its answer."""
    for subject, pronoun in (("attention's ", "its "), ("attention: ", ""), ("attention ", "it ")):
        if message.startswith(subject):
            return INLINE_SUBJECT + pronoun + message[len(subject):]
    return INLINE_SUBJECT.removesuffix("on the way, ") + message


# The consequences of attention's mistakes, read from self_attention's own answers.
_INLINE_CONSEQUENCES: dict[str, Callable[[Evidence], str]] = {
    "mask_large_negative": _fully_masked_row("self_attention", SA_FULLY_MASKED, SA_ALL_MASKED, reference.self_attention),
    "keys_not_transposed": _raises_unless_square(
        "self_attention", lambda args: args[2].shape[1] != args[0].shape[0],
        "that raises unless d_k equals the number of tokens, and is wrong even then", "that is wrong",
    ),
    "attention_no_max_shift": _overflow_of("self_attention", (SA_LARGE,)),
}
# Steps no answer of self_attention can prove: its weights are square (as many queries as
# keys), so each of these computes what another combination of steps computes too (K @ Q.T
# is the lesson's scores with Wq and Wk swapped; a column softmax is a transposed mask, scores
# and returned A). The answers then name none of them.
UNPROVABLE_INLINE = frozenset(
    {"scores_transposed", "attention_softmax_axis", "mask_transposed", "weights_transposed", "weights_returned_transposed"}
)
_NAMED = {mistake.id for mistake in MISTAKES}
INLINE: tuple[Mistake, ...] = tuple(
    Mistake(
        inline_id(mistake.id), _inline_message(mistake.message), "self_attention",
        consequence=_INLINE_CONSEQUENCES.get(mistake.id), same_as=mistake.id, echoes=mistake.echoes,
    )
    for mistake in MISTAKES
    if mistake.id in steps.ATTENTION_STEP_IDS - UNPROVABLE_INLINE and inline_id(mistake.id) not in _NAMED
)
# The ids a self_attention computing attention itself can be told.
INLINE_IDS = frozenset({mistake.id for mistake in INLINE} | {inline_id("mask_ignored")})

# Which attention probes show what (see steps.infer_attention).
ATTENTION_STAGES = {
    "moderate": (0, 1, 2, NEAR_WORKED, 7, MORE_QUERIES),
    "large": (5,),
    "masked": (3, FULLY_MASKED, ALL_MASKED),
}
SOFTMAX_LARGE, SOFTMAX_MASKED = (4, 5), 6  # where logits around 1000, and a -inf, sit in PROBES["softmax"]


def _changed_arguments(evidence: Evidence, function: str) -> str:
    """Which of ``function``'s arguments its probes left changed, as a sentence's subject:
    "Q is", "K and mask are"."""
    parameters = ASSIGNMENT.by_name[function].parameters
    changed: list[str] = []
    for probe, answer in zip(evidence.probes.get(function, []), evidence.answers.get(function, [])):
        for name, before, after in zip(parameters, probe.args, answer.args_after):
            if name not in changed and not same(after, before):
                changed.append(name)
    if not changed:
        return "arrays are"
    return f"{' and '.join(changed)} {'is' if len(changed) == 1 else 'are'}"


# -- what an unfinished function returns (beside grader.diagnoses.unfinished's) ------------


def _every(probes: list[Probe], answers: list[Answer], like: Callable[..., Any]) -> bool:
    """Every probe answered, and each answer the same as ``like`` gives for its arguments."""
    if any(answer.value is RAISED for answer in answers):
        return False
    with np.errstate(all="ignore"):
        return all(same(answer.value, like(*probe.args, **probe.kwargs)) for probe, answer in zip(probes, answers))


UNIFORM = "uniform"
FROM_UNIFORM = frozenset({UNIFORM})  # uniform weights below give uniform weights above


def _softmax_placeholder(probes: list[Probe], answers: list[Answer]) -> Stub | None:
    if _every(probes, answers, lambda x, axis=-1: np.exp(x)):
        return Stub(
            "softmax returns np.exp(x) without dividing by the sum: is it finished? Subtract the max along the axis, "
            "take exp, then divide by the sum along the same axis (section 2).",
            follows_input=True,
            kind="unnormalised",
        )
    if _every(probes, answers, lambda x, axis=-1: np.exp(x - x.max(axis=axis, keepdims=True))):
        return Stub(
            "softmax returns exp(x - max) without dividing by the sum (or divides by the largest exponential, which "
            "gives the same numbers): each entry must be divided by the sum along the axis, "
            "e / e.sum(axis=axis, keepdims=True) (section 2).",
            follows_input=True,
            kind="unnormalised",
        )
    if _every(probes, answers, lambda x, axis=-1: np.full(x.shape, 1.0 / x.shape[axis])):
        return Stub(
            "softmax gives every entry the same weight, 1/n along the axis, whatever x is: is it still a placeholder?",
            kind=UNIFORM,
        )
    return None


def _uniform(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple:  # noqa: N803
    A = np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])
    return A @ V, A


def _attention_placeholder(probes: list[Probe], answers: list[Answer]) -> Stub | None:
    # Every probe, masked ones and one with more queries than keys included: scores that pair
    # each query with its own key (uniform weights too) cannot be made there, and raise.
    if _every(probes, answers, _uniform) or _every(probes, answers, lambda Q, K, V, mask=None: _uniform(Q, K, V)[1]):
        return Stub(
            "attention's weights are uniform, 1/n_k for every key, whatever Q, K and the mask are: are its scores "
            "computed yet? The weights are softmax(Q @ K.T / sqrt(d_k)) (section 2).",
            kind=UNIFORM,
            comes_from=FROM_UNIFORM,
        )
    for scores in (lambda Q, K: Q @ K.T / np.sqrt(Q.shape[-1]), lambda Q, K: Q @ K.T):
        if _every(probes, answers, lambda Q, K, V, mask=None: scores(Q, K)) or _every(
            probes, answers, lambda Q, K, V, mask=None: (scores(Q, K), scores(Q, K))
        ):
            return Stub(
                "attention returns its scores so far, not yet (out, A): softmax of the scores and the output "
                "A @ V are still to be written (section 2).",
                kind="scores",
                comes_from=frozenset({"input"}),  # a softmax returning its input gives its scores
            )
    return None


def _self_attention_placeholder(probes: list[Probe], answers: list[Answer]) -> Stub | None:
    if _every(probes, answers, lambda X, Wq, Wk, Wv, mask=None: _uniform(X @ Wq, X @ Wk, X @ Wv)):  # noqa: N803
        return Stub(
            "self_attention's weights are uniform, 1/n for every token, whatever X and the weights are: does it "
            "call attention yet? return attention(X @ Wq, X @ Wk, X @ Wv, mask) (section 2).",
            kind=UNIFORM,
            comes_from=FROM_UNIFORM,
        )
    return None


def _causal_mask_placeholder(probes: list[Probe], answers: list[Answer]) -> Stub | None:
    for ones, words in ((lambda n: np.ones((n, n), dtype=bool), "all True"), (lambda n: np.ones((n, n)), "all ones")):
        if _every(probes, answers, ones):
            return Stub(
                f"causal_mask returns {words}: nothing is masked yet. Token i may see the tokens j <= i: "
                "np.tril(np.ones((n, n), dtype=bool)) (section 2)."
            )
    return None


PLACEHOLDERS = {
    "softmax": _softmax_placeholder,
    "attention": _attention_placeholder,
    "self_attention": _self_attention_placeholder,
    "causal_mask": _causal_mask_placeholder,
}


# -- the lesson's functions over the student's own helpers -----------------------------------


def _lesson_attention(softmax: StudentCall) -> Callable:
    """The lesson's attention, calling ``softmax`` (the student's)."""

    def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple:  # noqa: N803
        scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores)
        return A @ V, A

    return attention


def _lesson_self_attention(attention: StudentCall) -> Callable:
    """The lesson's self_attention, calling ``attention`` (the student's) as it is called
    in a check: without a mask when it has none."""

    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803
        Q, K, V = X @ Wq, X @ Wk, X @ Wv
        return attention(Q, K, V) if mask is None else attention(Q, K, V, mask)

    return self_attention


OVER_HELPERS = {
    "attention": lambda student: [_lesson_attention(student("softmax")), _lesson_attention(student("softmax", axis=-1))],
    "self_attention": lambda student: [_lesson_self_attention(student("attention"))],
}
HELPERS = {"attention": ("softmax",), "self_attention": ("attention",)}


# -- the inference of each function (steps.py), wired to the probes above --------------------


def _answering(call: Callable[[Probe], Answer], function: str, **kwargs: Any) -> Callable[..., Any]:
    """The head's own ``function``, called by the diagnosis: its answer, or RAISED."""
    return lambda *args: call(Probe(function, args, kwargs)).value


def _infer_attention(got: list[Answer], call: Callable[[Probe], Answer], helpers: str, standing: Mapping[str, str]) -> steps.Finding:
    """With a right softmax, the lesson's model of attention; with a wrong one, attention's
    steps around the head's own softmax first (it may call it); with an unfinished one, the
    lesson's model only (an attention that computes its own softmax)."""
    probes = PROBES["attention"]
    values = values_read(got)
    staged = steps.AttentionProbes(**{stage: tuple(probes[i].args for i in at) for stage, at in ATTENTION_STAGES.items()})
    answers = {stage: [values[i] for i in at] for stage, at in ATTENTION_STAGES.items()}
    if helpers == UNREADABLE:  # only its own code is read; what its answers show may be its helper's
        return steps.infer_attention(staged, answers, facts=False)
    softmaxes = [_answering(call, "softmax"), _answering(call, "softmax", axis=-1)]
    first, then = (
        (lambda: steps.infer_attention(staged, answers), lambda: helpers_model.infer_attention_over(softmaxes, staged, answers))
        if helpers == RIGHT
        else (lambda: helpers_model.infer_attention_over(softmaxes, staged, answers), lambda: steps.infer_attention(staged, answers))
    )
    found = first()
    if found.steps:
        return found
    other = then()
    return other if other.steps else found


def _infer_softmax(got: list[Answer], call: Callable[[Probe], Answer], _: str, standing: Mapping[str, str]) -> steps.Finding:
    return steps.infer_softmax(_SOFTMAX_PROBES, values_read(got))


def _infer_causal_mask(got: list[Answer], call: Callable[[Probe], Answer], _: str, standing: Mapping[str, str]) -> steps.Finding:
    return steps.infer_causal_mask([probe.args[0] for probe in PROBES["causal_mask"]], [answer.value for answer in got])


def _infer_self_attention(got: list[Answer], call: Callable[[Probe], Answer], helpers: str, standing: Mapping[str, str]) -> steps.Finding:
    """Its projections and mask around the lesson's attention, then around the head's own;
    else, as a self_attention that computes attention itself, read as attention is."""
    probes = [probe.args for probe in PROBES["self_attention"]]
    values = values_read(got)
    found = steps.infer_self_attention(probes, values)
    if found.steps or found.observed:
        return found
    if helpers != UNREADABLE:
        over = helpers_model.infer_self_attention_over(_answering(call, "attention"), probes, values)
        if over.steps:
            return over
    answers = {stage: [values[i] for i in at] for stage, at in SA_STAGES.items()}
    if standing.get("softmax") == WRONG:  # computing attention itself, it may call the student's softmax
        softmaxes = [_answering(call, "softmax"), _answering(call, "softmax", axis=-1)]
        inline = helpers_model.infer_attention_over(softmaxes, SA_AS_ATTENTION, answers, scales=SA_SCALES)
        if inline.steps:
            return _as_self_attentions(inline)
    # Around an attention or a softmax that is wrong, say only what is proven of its own code.
    return _infer_inline_attention(answers, facts=helpers == RIGHT and standing.get("softmax") == RIGHT)


def _projected(args: tuple) -> tuple:
    """A self_attention probe as the attention call the lesson's self_attention makes, with d_model."""
    X, Wq, Wk, Wv, *mask = args  # noqa: N806
    return (X @ Wq, X @ Wk, X @ Wv, mask[0] if mask else None, X.shape[1])


SA_STAGES = {"moderate": (0, 5), "large": (SA_LARGE,), "masked": (1, 2, 3, 4, SA_FULLY_MASKED, SA_ALL_MASKED)}
SA_AS_ATTENTION = steps.AttentionProbes(
    **{stage: tuple(_projected(PROBES["self_attention"][i].args) for i in at) for stage, at in SA_STAGES.items()}
)


SA_SCALES = (*steps.SCALES, *steps.D_MODEL_SCALES)


def _infer_inline_attention(answers: dict[str, list[Any]], facts: bool) -> steps.Finding:
    """self_attention's own attention code, read step by step as attention is (its divisor
    may also be sqrt(d_model)); each step is named by its self_attention id. ``facts``:
    whether to say what the answers show when nothing explains them."""
    found = steps.infer_attention(SA_AS_ATTENTION, answers, scales=SA_SCALES, facts=facts)
    if not found.steps and not facts:
        return steps.Finding([], [])
    return _as_self_attentions(found)


def _as_self_attentions(found: steps.Finding) -> steps.Finding:
    """attention's steps, found in self_attention's own code, under self_attention's ids."""
    return steps.Finding(
        [dataclasses.replace(step, mistake=inline_id(step.mistake)) for step in found.steps if inline_id(step.mistake) in INLINE_IDS],
        [_inline_message(sentence) for sentence in found.observed],
    )


_SOFTMAX_PROBES = [(probe.args, probe.kwargs) for probe in PROBES["softmax"]]
# How each function is read step by step (steps.py): against the lesson's model of its
# helpers when they are right, else against the head's own (helpers.py).
INFERRED: dict[str, Inferred] = {
    "softmax": _infer_softmax,
    "attention": _infer_attention,
    "self_attention": _infer_self_attention,
    "causal_mask": _infer_causal_mask,
}

KNOWN = Mistakes(
    probes=PROBES,
    reference=reference.FUNCTIONS,
    mistakes=MISTAKES + INLINE,
    parameters={function.name: function.parameters for function in ASSIGNMENT.functions},
    helpers=HELPERS,
    over_helpers=OVER_HELPERS,
    inferred=INFERRED,
    placeholders=PLACEHOLDERS,
    # Q, K and V, or X, take the batch axis; the weights and the mask do not (a mask broadcasts).
    batch_axis={
        "attention": BatchAxis("attention_needs_batch_axis", (0, 1, 2)),
        "self_attention": BatchAxis("self_attention_needs_batch_axis", (0,)),
    },
)
