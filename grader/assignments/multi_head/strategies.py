"""Named Hypothesis strategies for the multi-head checks.

Built only on the engine's generic helpers (:func:`grader.checking.strategies.arrays` and
:func:`grader.checking.strategies.sides`): Hypothesis draws and shrinks every size, then one
:class:`~grader.checking.strategies.Arrays` draws every array value of the example, so the course
secret and the readable / full-precision scheme apply here as to every assignment.

Sizes stay small so a shrunk counterexample fits on a screen: up to 5 tokens, 1 to 4
heads, heads 1 to 3 wide (so ``d_model = n_heads * d_head`` is at most 12). The
projections' entries are bounded by 1, as the lesson's are about 1/sqrt(d_model) in
size, so the scores stay moderate. ``n_heads`` is always a Python int that divides
``d_model`` (the interface defines ``d_head = d_model // n_heads``), except in
:func:`uneven_split_inputs`, the inputs ``split_heads`` must refuse.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from grader.authoring.checks import MAX_SIDE, arrays, sides

MAX_TOKENS = min(5, MAX_SIDE)
MAX_HEADS = 4
MAX_HEAD_WIDTH = 3
W_BOUND = 1.0


def _sizes(
    draw: st.DrawFn, *, min_n: int, min_heads: int, max_heads: int, min_width: int
) -> tuple[int, int, int]:
    """``(n, n_heads, d_head)``, drawn (and shrunk) by Hypothesis before any value."""
    n = draw(sides(MAX_TOKENS, min_side=min_n))
    n_heads = draw(sides(max_heads, min_side=min_heads))
    d_head = draw(sides(MAX_HEAD_WIDTH, min_side=min_width))
    return n, n_heads, d_head


@st.composite
def split_inputs(draw: st.DrawFn, *, min_heads: int = 1) -> tuple[np.ndarray, int]:
    """``(X, n_heads)``: X is (n, n_heads * d_head)."""
    n, n_heads, d_head = _sizes(draw, min_n=1, min_heads=min_heads, max_heads=MAX_HEADS, min_width=1)
    return arrays(draw).floats((n, n_heads * d_head)), n_heads


@st.composite
def uneven_split_inputs(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """``(X, n_heads)`` where ``d_model`` is no multiple of ``n_heads`` (2 to 4 heads, 1 to
    ``MAX_HEADS * MAX_HEAD_WIDTH + 1`` columns, some fewer than the heads)."""
    n = draw(sides(MAX_TOKENS, min_side=1))
    n_heads = draw(sides(MAX_HEADS, min_side=2))
    d_model = draw(sides(MAX_HEADS * MAX_HEAD_WIDTH + 1, min_side=1).filter(lambda width: width % n_heads))
    return arrays(draw).floats((n, d_model)), n_heads


@st.composite
def head_stacks(draw: st.DrawFn, *, min_heads: int = 1) -> np.ndarray:
    """``H``, a stack of per-head outputs, (n_heads, n, d_head)."""
    n, n_heads, d_head = _sizes(draw, min_n=1, min_heads=min_heads, max_heads=MAX_HEADS, min_width=1)
    return arrays(draw).floats((n_heads, n, d_head))


def _projections(source: Any, n: int, d_model: int) -> tuple[np.ndarray, ...]:
    """``X, Wq, Wk, Wv, Wo`` in that order, all from the example's one source of values."""
    X = source.floats((n, d_model))
    return (X, *(source.floats((d_model, d_model), W_BOUND) for _ in range(4)))


@st.composite
def multi_head_inputs(
    draw: st.DrawFn,
    *,
    min_n: int = 1,
    min_heads: int = 1,
    max_heads: int = MAX_HEADS,
    min_width: int = 1,
) -> tuple[Any, ...]:
    """``(X, Wq, Wk, Wv, Wo, n_heads)``: X is (n, d_model), every W (d_model, d_model)."""
    n, n_heads, d_head = _sizes(draw, min_n=min_n, min_heads=min_heads, max_heads=max_heads, min_width=min_width)
    return (*_projections(arrays(draw), n, n_heads * d_head), n_heads)


def one_head_inputs() -> st.SearchStrategy[tuple[Any, ...]]:
    """``(X, Wq, Wk, Wv, Wo, 1)``: a single head as wide as the model, the lesson's head."""
    return multi_head_inputs(max_heads=1)


def scale_inputs() -> st.SearchStrategy[tuple[Any, ...]]:
    """Inputs where the scale is told apart: at least 2 heads, each at least 2 wide, so
    sqrt(d_head), sqrt(d_model), d_head and 1 are four different numbers."""
    return multi_head_inputs(min_heads=2, min_width=2)


@st.composite
def causal_inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    """``(X, Wq, Wk, Wv, Wo, n_heads, mask)`` for at least 2 tokens under the lesson's causal mask."""
    *inputs, n_heads = draw(multi_head_inputs(min_n=2))
    n = inputs[0].shape[0]
    return (*inputs, n_heads, np.tril(np.ones((n, n), dtype=bool)))


@st.composite
def masked_inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    """``(X, Wq, Wk, Wv, Wo, n_heads, mask)`` with an arbitrary (n, n) mask keeping one key
    per query at least."""
    n, n_heads, d_head = _sizes(draw, min_n=1, min_heads=1, max_heads=MAX_HEADS, min_width=1)
    source = arrays(draw)
    return (*_projections(source, n, n_heads * d_head), n_heads, source.mask(n, n))


@st.composite
def rows_fully_masked(draw: st.DrawFn) -> tuple[Any, ...]:
    """``(X, Wq, Wk, Wv, Wo, n_heads, mask)`` whose mask has one or more rows all False (every row, at times:
    a single token whose one key is masked too)."""
    n, n_heads, d_head = _sizes(draw, min_n=1, min_heads=1, max_heads=MAX_HEADS, min_width=1)
    source = arrays(draw)
    # No zero in X, Wv or Wo, so a dead row's nan reaches every column of out however the
    # products are computed (np.dot's BLAS skips zero factors).
    inputs = tuple(np.where(W == 0, 0.25, W) for W in _projections(source, n, n_heads * d_head))
    mask = source.mask(n, n)
    mask[sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))] = False
    return (*inputs, n_heads, mask)


@st.composite
def large_score_inputs(draw: st.DrawFn) -> tuple[Any, ...]:
    """``(X, Wq, Wk, Wv, Wo, n_heads, mask)`` whose scaled scores reach about ±1e3 and beyond in every head.

    X, Wq and Wk hold whole numbers, so the scores are exact in float32 too.
    """
    n, n_heads, d_head = _sizes(draw, min_n=1, min_heads=1, max_heads=MAX_HEADS, min_width=1)
    d_model = n_heads * d_head
    source = arrays(draw)
    X = source.floats((n, d_model), 20, step=1)
    Wq, Wk = (source.floats((d_model, d_model), 2, step=1) for _ in range(2))
    Wv, Wo = (source.floats((d_model, d_model), W_BOUND) for _ in range(2))
    # No mask, or one that keeps a key per query: a masked key may hold its row's largest score.
    return X, Wq, Wk, Wv, Wo, n_heads, source.mask(n, n) if draw(st.booleans()) else None


def one_of_masks() -> st.SearchStrategy[tuple[Any, ...]]:
    """Inputs with a causal or an arbitrary mask."""
    return st.one_of(causal_inputs(), masked_inputs())


def any_multi_head_inputs() -> st.SearchStrategy[tuple[Any, ...]]:
    """Inputs whose mask (last) is None, causal or arbitrary."""
    unmasked = multi_head_inputs().map(lambda drawn: (*drawn, None))
    return st.one_of(unmasked, causal_inputs(), masked_inputs())


def with_permutation(inputs: tuple[Any, ...]) -> st.SearchStrategy[tuple[tuple[Any, ...], np.ndarray]]:
    """``(inputs, order)``: the inputs and an order of X's rows (the tokens)."""
    n = inputs[0].shape[0]
    return st.permutations(range(n)).map(lambda order: (inputs, np.array(order)))


def permuted_inputs() -> st.SearchStrategy[tuple[tuple[Any, ...], np.ndarray]]:
    """Unmasked inputs for at least 2 tokens, with an order of the tokens."""
    return multi_head_inputs(min_n=2).flatmap(with_permutation)
