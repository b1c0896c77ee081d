"""Hypothesis strategies for the layer-normalisation checks.

Built on the grader's generic helpers (``arrays`` and ``sides`` of
:mod:`grader.authoring.checks`): Hypothesis draws and shrinks every size first, then one
source of values draws every array of the example, so the course secret and the
readable / full-precision scheme apply here too.

Sizes stay small so a shrunk counterexample fits on a screen: 1 to 5 rows (tokens) of 1 to
6 columns (features). A row of one column is a constant row; so is any row whose readable
values happen to be equal: layer_norm must give beta there, not nan. X's entries lie in
[-3, 3]; gamma's and beta's in [-2, 2].
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from grader.authoring.checks import MAX_SIDE, arrays, sides

MAX_ROWS = min(5, MAX_SIDE)
MAX_COLS = MAX_SIDE
PARAM_BOUND = 2.0
# eps values a check passes explicitly: large enough that where it is added shows.
EPS_VALUES = (1.0, 0.5, 0.1, 2.0)


def _sizes(draw: st.DrawFn, *, min_n: int = 1, min_d: int = 1) -> tuple[int, int]:
    return draw(sides(MAX_ROWS, min_side=min_n)), draw(sides(MAX_COLS, min_side=min_d))


@st.composite
def matrices(draw: st.DrawFn, *, min_n: int = 1, min_d: int = 1) -> np.ndarray:
    """``X``, (n, d)."""
    n, d = _sizes(draw, min_n=min_n, min_d=min_d)
    return arrays(draw).floats((n, d))


@st.composite
def layer_inputs(draw: st.DrawFn, *, min_n: int = 1, min_d: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, gamma, beta)``: X (n, d), gamma and beta (d,)."""
    n, d = _sizes(draw, min_n=min_n, min_d=min_d)
    source = arrays(draw)
    return source.floats((n, d)), source.floats((d,), PARAM_BOUND), source.floats((d,), PARAM_BOUND)


@st.composite
def layer_inputs_with_eps(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(X, gamma, beta, eps)`` with eps one of :data:`EPS_VALUES`, X at least 2 wide (so
    that some rows have a variance for eps to be added to)."""
    n, d = _sizes(draw, min_d=2)
    eps = draw(st.sampled_from(EPS_VALUES))
    source = arrays(draw)
    return source.floats((n, d)), source.floats((d,), PARAM_BOUND), source.floats((d,), PARAM_BOUND), eps


@st.composite
def constant_row_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """``(X, gamma, beta, rows)``: the rows of X listed in ``rows`` (one at least) have all
    their entries equal (each its own value); the others are drawn as usual."""
    n, d = _sizes(draw)
    rows = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))
    source = arrays(draw)
    X = source.floats((n, d))
    X[rows] = source.floats((len(rows), 1))  # broadcast along each constant row
    return X, source.floats((d,), PARAM_BOUND), source.floats((d,), PARAM_BOUND), rows


@st.composite
def rms_inputs(draw: st.DrawFn, *, min_d: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(X, gamma)``: X (n, d), gamma (d,)."""
    n, d = _sizes(draw, min_d=min_d)
    source = arrays(draw)
    return source.floats((n, d)), source.floats((d,), PARAM_BOUND)


@st.composite
def rms_inputs_any_eps(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float | None]:
    """``(X, gamma, eps)``: eps None (the default, not passed) or one of :data:`EPS_VALUES`."""
    n, d = _sizes(draw)
    eps = draw(st.sampled_from((None, *EPS_VALUES)))
    source = arrays(draw)
    return source.floats((n, d)), source.floats((d,), PARAM_BOUND), eps
