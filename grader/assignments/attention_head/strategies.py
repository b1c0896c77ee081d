"""Named Hypothesis strategies for the inputs the checks feed to one attention head.

Built on :mod:`grader.checking.strategies` (see there how an example's values are drawn).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.authoring.checks import MAX_SIDE, Arrays, arrays, sides, values  # noqa: F401 (values: for the checks)


def qkv(
    draw: st.DrawFn, *, max_side: int = MAX_SIDE, square: bool = False
) -> tuple[Arrays, np.ndarray, np.ndarray, np.ndarray]:
    """The example's arrays and ``(Q, K, V)`` with independent sizes (``n_q == n_k`` when
    ``square``); the arrays go on to draw whatever else the example needs."""
    side = sides(max_side)
    n_q, d_k, d_v = draw(side), draw(side), draw(side)
    n_k = n_q if square else draw(side)
    source = arrays(draw)
    return source, source.floats((n_q, d_k)), source.floats((n_k, d_k)), source.floats((n_k, d_v))


def without_zeros(values: np.ndarray) -> np.ndarray:
    """``values`` with each exact 0 made a quarter: a product with a fully masked row's nan is then nan
    however it is computed (np.dot's BLAS skips zero factors)."""
    return np.where(values == 0, 0.25, values)


def logits(min_dims: int = 1, max_dims: int = 3, bound: float = 20.0) -> st.SearchStrategy[np.ndarray]:
    """Score arrays of one to three axes, as softmax meets them."""
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=MAX_SIDE)

    @st.composite
    def draw_logits(draw: st.DrawFn) -> np.ndarray:
        shape = draw(shapes)
        return arrays(draw).floats(shape, bound)

    return draw_logits()


TWO_OR_THREE_D_LOGITS = logits(min_dims=2)
# Every axis but the last, counted from the front or from the back (-2 is not -1).
AXES = {ndim: st.sampled_from([*range(ndim - 1), *range(-ndim, -1)]) for ndim in (2, 3)}


@st.composite
def logits_and_axis(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """A 2-D or 3-D score array and an axis that is not its last one."""
    x = draw(TWO_OR_THREE_D_LOGITS)
    return x, draw(AXES[x.ndim])


@st.composite
def wide_range_logits(draw: st.DrawFn) -> np.ndarray:
    """Rows around -1e3, 0 or 1e3 whose spreads differ by up to six orders of magnitude.

    A softmax without the max shift overflows on these; one that subtracts a single
    global max underflows to 0/0 on the rows of small spread.
    """
    rows, cols = draw(sides(5, min_side=2)), draw(sides())
    source = arrays(draw)
    unit = source.floats((rows, cols), bound=1.0)
    spread = source.rng.choice([1e-3, 1.0, 1e3], size=(rows, 1))
    offset = source.rng.choice([-1e3, 0.0, 1e3], size=(rows, 1))
    return offset + spread * unit


@st.composite
def attention_inputs(draw: st.DrawFn, *, square: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` with independent sizes (``n_q == n_k`` when ``square``)."""
    return qkv(draw, square=square)[1:]


FOUR_DISTINCT_SIDES = st.lists(st.integers(1, 7), min_size=4, max_size=4, unique=True)


@st.composite
def distinct_size_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` where n_q, n_k, d_k and d_v are four different numbers."""
    n_q, n_k, d_k, d_v = draw(FOUR_DISTINCT_SIDES)
    source = arrays(draw)
    return source.floats((n_q, d_k)), source.floats((n_k, d_k)), source.floats((n_k, d_v))


@st.composite
def scaling_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` with d_k anywhere in 1..256 and d_v, n_q, n_k all different from it."""
    d_k = draw(sides(256))
    small = st.sampled_from([side for side in range(1, 6) if side != d_k])
    n_q, n_k = draw(small), draw(small)
    d_v = draw(st.sampled_from([side for side in range(1, 7) if side not in (d_k, n_q, n_k)]))
    source = arrays(draw)
    return source.floats((n_q, d_k), 1.5), source.floats((n_k, d_k), 1.5), source.floats((n_k, d_v))


@st.composite
def large_score_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` whose scaled scores reach about ±1e3.

    Readable Q and K hold whole numbers, so their dot products are exact in float32 too: a
    float32 head is then judged on its softmax, not on rounding the inputs.
    """
    side = sides(4)
    n_q, n_k, d_k, d_v = draw(side), draw(side), draw(side), draw(side)
    source = arrays(draw)
    return source.floats((n_q, d_k), 40, step=1), source.floats((n_k, d_k), 40, step=1), source.floats((n_k, d_v))


@st.composite
def large_score_masked_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """``(Q, K, V, mask)`` whose scaled scores reach about ±1e3, with no mask or one that keeps
    a key per query: a masked key may hold a row's largest score, which the -inf must hide
    exactly (a mask applied after exp then underflows the keys that are kept)."""
    Q, K, V = draw(large_score_inputs())
    masked = draw(st.booleans())
    return Q, K, V, arrays(draw).mask(Q.shape[0], K.shape[0]) if masked else None


@st.composite
def masked_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V, mask)`` with an arbitrary mask that keeps one key per query at least."""
    source, Q, K, V = qkv(draw)
    return Q, K, V, source.mask(Q.shape[0], K.shape[0])


@st.composite
def causal_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V, mask)`` for n tokens under the lesson's causal mask."""
    _, Q, K, V = qkv(draw, square=True)
    return Q, K, V, np.tril(np.ones((Q.shape[0], Q.shape[0]), dtype=bool))


def one_of_masks() -> st.SearchStrategy[tuple]:
    """``(Q, K, V, mask)`` where the mask is causal or arbitrary."""
    return st.one_of(causal_attention_inputs(), masked_attention_inputs())


def any_attention_inputs() -> st.SearchStrategy[tuple]:
    """``(Q, K, V, mask)`` where the mask is None, causal or arbitrary."""
    unmasked = attention_inputs().map(lambda drawn: (*drawn, None))
    return st.one_of(unmasked, causal_attention_inputs(), masked_attention_inputs())


@st.composite
def one_row_fully_masked(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V, mask)`` with at least two queries, exactly one of them fully masked."""
    source, Q, K, V = qkv(draw)
    V = without_zeros(V)  # so that the masked row's nan reaches every column of out, np.dot or @
    Q = np.vstack([Q, source.floats((1, Q.shape[1]))])
    drawn = source.mask(Q.shape[0], K.shape[0])
    drawn[draw(sides(Q.shape[0])) - 1] = False
    return Q, K, V, drawn


@st.composite
def self_attention_inputs(
    draw: st.DrawFn, *, min_n: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Wq, Wk, Wv)`` for a sequence of n tokens."""
    side = sides()
    n, d_model, d_k, d_v = draw(sides(MAX_SIDE, min_side=min_n)), draw(side), draw(side), draw(side)
    source = arrays(draw)
    return (
        source.floats((n, d_model)),
        source.floats((d_model, d_k), 1.0),
        source.floats((d_model, d_k), 1.0),
        source.floats((d_model, d_v), 1.0),
    )


@st.composite
def large_score_self_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Wq, Wk, Wv)`` whose scaled scores reach about ±1e3 and beyond.

    X, Wq and Wk hold whole numbers, so the scores are exact in float32 too: a float32 head
    is judged on its softmax, not on rounding its projections.
    """
    side = sides(4)
    n, d_model, d_k, d_v = draw(side), draw(side), draw(side), draw(side)
    source = arrays(draw)
    X, Wq, Wk = source.floats((n, d_model), 6, step=1), source.floats((d_model, d_k), 2, step=1), source.floats((d_model, d_k), 2, step=1)
    # Token 0 is 6 times the first unit vector and the first rows of Wq and Wk are all 2: its
    # own score is 144 sqrt(d_k), so the largest score is never 0.
    X[0], Wq[0], Wk[0] = 0.0, 2.0, 2.0
    X[0, 0] = 6.0
    # Scaled up by a whole number until the largest score is 1e3 or more (X is in Q and K,
    # so the scores grow with its square): a softmax without the max shift overflows.
    largest = np.abs((X @ Wq) @ (X @ Wk).T).max() / np.sqrt(d_k)
    X *= max(1.0, np.ceil(np.sqrt(1000.0 / largest)))
    return X, Wq, Wk, source.floats((d_model, d_v), 1.0)


@st.composite
def self_attention_one_row_fully_masked(
    draw: st.DrawFn,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Wq, Wk, Wv, mask)`` for at least two tokens, exactly one of them fully masked."""
    X, Wq, Wk, Wv = draw(self_attention_inputs(min_n=2))
    X, Wv = without_zeros(X), without_zeros(Wv)
    n = X.shape[0]
    mask = arrays(draw).mask(n, n)
    mask[draw(sides(n)) - 1] = False
    return X, Wq, Wk, Wv, mask


@st.composite
def masked_self_attention_inputs(
    draw: st.DrawFn,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Wq, Wk, Wv, mask)`` with an arbitrary mask that keeps one key per query at least."""
    X, Wq, Wk, Wv = draw(self_attention_inputs())
    n = X.shape[0]
    return X, Wq, Wk, Wv, arrays(draw).mask(n, n)


def with_permutation(xw: tuple[np.ndarray, ...]) -> st.SearchStrategy[tuple]:
    """``(xw, order)``: the inputs and an order of X's rows."""
    n = xw[0].shape[0]
    return st.permutations(range(n)).map(lambda order: (xw, np.array(order)))


@st.composite
def batched_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` with a leading batch axis: (b, n_q, d_k), (b, n_k, d_k), (b, n_k, d_v)."""
    side = sides(4)
    b, n_q, n_k, d_k, d_v = (draw(side) for _ in range(5))
    source = arrays(draw)
    return source.floats((b, n_q, d_k)), source.floats((b, n_k, d_k)), source.floats((b, n_k, d_v))
