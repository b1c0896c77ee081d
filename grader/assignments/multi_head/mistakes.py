"""The known mistakes of multi-head attention: probes, variants and messages.

Each mistake is a variant of the reference that makes exactly that mistake (see
:mod:`grader.diagnoses` for how a head's answers are matched against it). A mistake of
``multi_head_attention`` is modelled with the reference's own ``split_heads`` and
``merge_heads`` and is named only when the head's own two are right (``builds_on``): a
wrong split shows in every answer of multi_head_attention that calls it, and is named
once, where it is made.

A reshape-only ``split_heads`` is often paired with a reshape-only ``merge_heads``: the
two are then inverses of each other, so ``split_merge.round_trip`` passes, but each is
named on its own probes (the heads hold the wrong numbers, and merge puts the right heads
in the wrong places), and multi_head_attention, which builds on both, is not named. A
head that keeps correct helpers but reshapes inline in multi_head_attention is
``mha_reshape_without_transpose``.

To add a mistake: write its variant below and add a :class:`Mistake` to ``MISTAKES``;
then add a head with that mistake to ``tests/multi_head/heads/buggy/`` with a
``# diagnosis:`` line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grader.assignments.multi_head import reference
from grader.diagnoses import Mistake, Mistakes, Probe, changes_its_inputs, fixed_matrix as _matrix


def _ws(seed: int, d_model: int) -> tuple[np.ndarray, ...]:
    """Wq, Wk, Wv, Wo for probes: entries about 1/sqrt(d_model), as the lesson draws them."""
    return tuple(_matrix(seed + i, d_model, d_model, 0.5) for i in range(4))


# Whole numbers 0..: where each one lands after a split or a merge reads off at a glance.
COUNTING_2x4 = np.arange(8.0).reshape(2, 4)
X_3x6 = _matrix(1, 3, 6)
CAUSAL_3 = np.tril(np.ones((3, 3), dtype=bool))
CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))
# Every row keeps a key (no nan), and no head's weights are the same with and without it.
PATTERN_3 = np.array([[False, True, True], [True, False, True], [True, True, False]])
X_3x4, W_4 = _matrix(2, 3, 4), _ws(10, 4)
X_2x6, W_6 = _matrix(3, 2, 6), _ws(20, 6)
X_4x6 = _matrix(4, 4, 6)

PROBES: dict[str, list[Probe]] = {
    "split_heads": [
        Probe("split_heads", (COUNTING_2x4, 2)),
        Probe("split_heads", (X_3x6, 3)),  # d_head 2
        Probe("split_heads", (X_3x6, 2)),  # d_head 3
        Probe("split_heads", (_matrix(5, 4, 2), 2)),  # d_head 1
    ],
    "merge_heads": [
        Probe("merge_heads", (np.arange(8.0).reshape(2, 2, 2),)),
        Probe("merge_heads", (np.arange(12.0).reshape(2, 3, 2),)),  # 2 heads, 3 tokens
        Probe("merge_heads", (np.arange(12.0).reshape(3, 2, 2),)),  # 3 heads, 2 tokens
        Probe("merge_heads", (np.arange(12.0).reshape(2, 2, 3),)),  # heads 3 wide
    ],
    "multi_head_attention": [
        Probe("multi_head_attention", (X_3x4, *W_4, 2)),
        Probe("multi_head_attention", (X_3x4, *W_4, 2, CAUSAL_3)),
        Probe("multi_head_attention", (X_3x4, *W_4, 2, PATTERN_3)),
        Probe("multi_head_attention", (X_2x6, *W_6, 3)),  # 3 heads of width 2
        Probe("multi_head_attention", (X_4x6, *W_6, 2, CAUSAL_4)),  # 2 heads of width 3
        Probe("multi_head_attention", (X_3x4, *W_4, 1)),  # one head: the lesson's
    ],
}

REFERENCE: dict[str, Callable] = dict(reference.FUNCTIONS)


# -- variants of split_heads and merge_heads ---------------------------------------------


def _split_reshape_only(X: np.ndarray, n_heads: int) -> np.ndarray:
    n, d_model = X.shape
    return X.reshape(n_heads, n, d_model // n_heads)


def _split_interleaved(X: np.ndarray, n_heads: int) -> np.ndarray:
    n, d_model = X.shape
    return X.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)  # head h: columns h::n_heads


def _split_tokens_first(X: np.ndarray, n_heads: int) -> np.ndarray:
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads)


def _merge_reshape_only(H: np.ndarray) -> np.ndarray:
    n_heads, n, d_head = H.shape
    return H.reshape(n, n_heads * d_head)


def _merge_interleaved(H: np.ndarray) -> np.ndarray:
    n_heads, n, d_head = H.shape
    return H.transpose(1, 2, 0).reshape(n, n_heads * d_head)


def _merge_stacks_tokens(H: np.ndarray) -> np.ndarray:
    return np.concatenate(list(H), axis=0)  # (n_heads * n, d_head)


# -- variants of multi_head_attention, one step replaced ---------------------------------


def _heads_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    return Q @ np.swapaxes(K, -1, -2)


def _mha_with(
    *,
    scale: Callable[[int, int], float] = lambda d_head, d_model: np.sqrt(d_head),
    masked: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda s, m: np.where(m, s, -np.inf),
    softmax_axis: int = -1,
    project: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda merged, Wo: merged @ Wo,
    split: Callable[[np.ndarray, int], np.ndarray] = reference.split_heads,
    merge: Callable[[np.ndarray], np.ndarray] = reference.merge_heads,
) -> Callable:
    """The reference multi_head_attention with one step replaced."""

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None) -> Any:  # noqa: N803 - the handout's names
        X, Wq, Wk, Wv, Wo = (np.asarray(a, dtype=float) for a in (X, Wq, Wk, Wv, Wo))
        Q, K, V = (split(X @ W, n_heads) for W in (Wq, Wk, Wv))
        d_model = X.shape[1]
        s = _heads_scores(Q, K) / scale(d_model // n_heads, d_model)
        if mask is not None:
            s = masked(s, mask)
        A = reference.softmax(s, axis=softmax_axis)
        return project(merge(A @ V), Wo), A

    return multi_head_attention


def _mask_first_head(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    s = s.copy()
    s[0] = np.where(mask, s[0], -np.inf)
    return s


MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "split_heads_reshape_only",
        "split_heads reshapes X straight to (n_heads, n, d_head) without a transpose. The shape is "
        "right but the numbers are not: reshape reads X row by row, so head 0 gets the first tokens' "
        "whole rows and tokens and heads are mixed. Reshape to (n, n_heads, d_head), which cuts each "
        "token's row into its heads, then move the heads axis first with .transpose(1, 0, 2) "
        "(handout section 3, 'Why the transpose').",
        "split_heads",
        (_split_reshape_only,),
    ),
    Mistake(
        "split_heads_interleaved",
        "split_heads gives head h every n_heads-th column (h, h + n_heads, ...) instead of the block "
        "h*d_head:(h+1)*d_head: reshaping to (n, d_head, n_heads) cuts each row the wrong way round. "
        "Reshape to (n, n_heads, d_head), then .transpose(1, 0, 2) (handout section 3).",
        "split_heads",
        (_split_interleaved,),
    ),
    Mistake(
        "split_heads_tokens_first",
        "split_heads returns shape (n, n_heads, d_head): each token's row is cut into heads, but the "
        "heads axis must come first, (n_heads, n, d_head), so that H[h] is one head's (n, d_head) "
        "matrix. Add .transpose(1, 0, 2) (handout section 3).",
        "split_heads",
        (_split_tokens_first,),
    ),
    Mistake(
        "merge_heads_no_transpose",
        "merge_heads reshapes H straight to (n, n_heads * d_head) without a transpose, so the rows of "
        "the result mix tokens and heads: row 0 holds head 0's first tokens instead of token 0 in every "
        "head. Move the tokens axis first with .transpose(1, 0, 2), then reshape to (n, n_heads * d_head) "
        "(handout section 4, 'Merging the heads').",
        "merge_heads",
        (_merge_reshape_only,),
    ),
    Mistake(
        "merge_heads_interleaved",
        "merge_heads interleaves the heads' columns (head 0's first column, head 1's first column, ...) "
        "instead of putting head h in the block h*d_head:(h+1)*d_head: it transposes to (n, d_head, "
        "n_heads) before reshaping. Use .transpose(1, 0, 2), to (n, n_heads, d_head) (handout section 4).",
        "merge_heads",
        (_merge_interleaved,),
    ),
    Mistake(
        "merge_heads_stacks_tokens",
        "merge_heads stacks the heads on top of each other, (n_heads * n, d_head), as np.concatenate "
        "does along its default axis 0: heads must sit side by side, in columns, one row per token: "
        "(n, n_heads * d_head), e.g. np.concatenate(list(H), axis=1) (handout section 4).",
        "merge_heads",
        (_merge_stacks_tokens,),
    ),
    Mistake(
        "mha_reshape_without_transpose",
        "multi_head_attention splits or merges the heads with reshape alone instead of calling your "
        "split_heads and merge_heads, so tokens and heads are mixed inside the attention. Call "
        "split_heads on X @ Wq, X @ Wk and X @ Wv, and merge_heads on the heads' outputs "
        "(handout sections 3 and 4).",
        "multi_head_attention",
        (
            _mha_with(split=_split_reshape_only, merge=_merge_reshape_only),
            _mha_with(split=_split_reshape_only),
            _mha_with(merge=_merge_reshape_only),
        ),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_scale_d_model",
        "multi_head_attention divides the scores by sqrt(d_model); each head's dot products have "
        "d_head = d_model // n_heads terms, so the scale is sqrt(d_head) (handout section 5, "
        "'The scale is per head').",
        "multi_head_attention",
        (_mha_with(scale=lambda d_head, d_model: np.sqrt(d_model)),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_missing_scale",
        "multi_head_attention never divides the scores by sqrt(d_head), so the weights are sharper "
        "than the lesson's head makes them. Each head is softmax(Q_h K_h^T / sqrt(d_head)) V_h "
        "(handout section 5, and the lesson's 'Why divide by sqrt(d_k)?').",
        "multi_head_attention",
        (_mha_with(scale=lambda d_head, d_model: 1.0),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_scale_by_d_head",
        "multi_head_attention divides the scores by d_head instead of sqrt(d_head). A dot product of "
        "d_head unit-variance terms has standard deviation sqrt(d_head) (handout section 5).",
        "multi_head_attention",
        (_mha_with(scale=lambda d_head, d_model: float(d_head)),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_softmax_wrong_axis",
        "multi_head_attention takes softmax along the wrong axis of the (n_heads, n, n) scores: over "
        "the heads (axis 0) or over the queries (axis 1), so the rows of A do not sum to 1. Each row, "
        "one query of one head, is a distribution over the keys: softmax(scores, axis=-1) "
        "(handout section 2, the shapes table).",
        "multi_head_attention",
        (_mha_with(softmax_axis=0), _mha_with(softmax_axis=1)),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_no_output_projection",
        "multi_head_attention returns the merged heads without multiplying them by Wo. Wo is what mixes "
        "the heads' outputs into one d_model-wide output: out = merge_heads(A @ V) @ Wo "
        "(handout section 4, 'Wo mixes the heads').",
        "multi_head_attention",
        (_mha_with(project=lambda merged, Wo: merged),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_mask_one_head",
        "multi_head_attention applies the mask to the first head only; the other heads still see every "
        "token, the future too. The one (n, n) mask holds for every head: np.where(mask, scores, -np.inf) "
        "on the (n_heads, n, n) scores broadcasts it over the heads (handout section 6, 'One mask for "
        "every head').",
        "multi_head_attention",
        (_mha_with(masked=_mask_first_head),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_mask_ignored",
        "multi_head_attention accepts a mask but never applies it, so a causal mask does not stop any "
        "head from seeing the future (handout section 6: scores = np.where(mask, scores, -np.inf) before "
        "softmax, in every head).",
        "multi_head_attention",
        (_mha_with(masked=lambda s, m: s),),
        builds_on=("split_heads", "merge_heads"),
    ),
    Mistake(
        "mha_mutates_inputs",
        "multi_head_attention changes the arrays it is given (an in-place operation such as Wq /= ... "
        "or X.shape = ... on an argument), so the caller's X or weights are different after the call, "
        "and calling it twice gives two answers. Compute new arrays instead: X @ Wq / np.sqrt(d_head) "
        "leaves both alone.",
        "multi_head_attention",
        shows_in=changes_its_inputs,
        beside_answers=True,
    ),
)

KNOWN = Mistakes(probes=PROBES, reference=REFERENCE, mistakes=MISTAKES)
