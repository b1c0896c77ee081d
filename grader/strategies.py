"""Named Hypothesis strategies for the inputs the checks feed to a submission.

Every strategy draws float64 arrays of modest size with finite values; sizes stay small
so a shrunk counterexample fits on a screen. Sides start at 1 on purpose: a 1 x 1 head
is a real edge case.

An example's array values cost Hypothesis one choice, a seed, rather than one per
element: the sizes are drawn and shrunk by Hypothesis, and every array of the example
comes from one ``numpy.random`` generator seeded with that choice, on a grid of quarters
(exact in float32 too, short to print). Shrinking a failing check is most of a buggy
head's grading time: with one choice per element Hypothesis ran a few hundred examples
to shrink a head fed three 6 x 6 matrices; with a seed it shrinks the sizes to the
smallest that fail and the seed to the first that fails, in about a dozen.

The composite strategies share helpers that take a generator (``rng``) and return
arrays, so no strategy object is built, and validated, at every draw.
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

MAX_SIDE = 6
# Values are multiples of 1/STEPS_PER_UNIT: exact in float32, and short in a repro.
STEPS_PER_UNIT = 4
seeds = st.integers(0, 2**16 - 1)


def values(bound: float = 3.0) -> st.SearchStrategy[float]:
    """One float in [-bound, bound] (for scalars; arrays come from a seed)."""
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@functools.cache  # strategies are immutable: built (and validated) once, not at every draw
def sides(max_side: int = MAX_SIDE, min_side: int = 1) -> st.SearchStrategy[int]:
    return st.integers(min_side, max_side)


def generator(draw: st.DrawFn) -> np.random.Generator:
    """The example's source of array values: drawn last, after every size it needs."""
    return np.random.default_rng(draw(seeds))


def grid(rng: np.random.Generator, shape: tuple[int, ...], bound: float = 3.0) -> np.ndarray:
    """A float64 array of ``shape`` whose values are multiples of a quarter in [-bound, bound]."""
    steps = int(bound * STEPS_PER_UNIT)
    return rng.integers(-steps, steps, size=shape, endpoint=True) / STEPS_PER_UNIT


def whole(rng: np.random.Generator, shape: tuple[int, ...], bound: int) -> np.ndarray:
    """A float64 array of ``shape`` holding whole numbers in [-bound, bound]."""
    return rng.integers(-bound, bound, size=shape, endpoint=True).astype(np.float64)


def mask(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A bool (rows, cols) mask with at least one True in every row."""
    drawn = rng.random((rows, cols)) < 0.5
    drawn[np.arange(rows), rng.integers(0, cols, size=rows)] = True
    return drawn


def qkv(
    draw: st.DrawFn, *, max_side: int = MAX_SIDE, square: bool = False
) -> tuple[np.random.Generator, np.ndarray, np.ndarray, np.ndarray]:
    """The example's generator and ``(Q, K, V)`` with independent sizes (``n_q == n_k``
    when ``square``); the generator goes on to draw whatever else the example needs."""
    side = sides(max_side)
    n_q, d_k, d_v = draw(side), draw(side), draw(side)
    n_k = n_q if square else draw(side)
    rng = generator(draw)
    return rng, grid(rng, (n_q, d_k)), grid(rng, (n_k, d_k)), grid(rng, (n_k, d_v))


def logits(min_dims: int = 1, max_dims: int = 3, bound: float = 20.0) -> st.SearchStrategy[np.ndarray]:
    """Score arrays of one to three axes, as softmax meets them."""
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=MAX_SIDE)

    @st.composite
    def draw_logits(draw: st.DrawFn) -> np.ndarray:
        shape = draw(shapes)
        return grid(generator(draw), shape, bound)

    return draw_logits()


TWO_OR_THREE_D_LOGITS = logits(min_dims=2)
AXES = {ndim: st.integers(0, ndim - 2) for ndim in (2, 3)}


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
    rng = generator(draw)
    unit = grid(rng, (rows, cols), bound=1.0)
    spread = rng.choice([1e-3, 1.0, 1e3], size=(rows, 1))
    offset = rng.choice([-1e3, 0.0, 1e3], size=(rows, 1))
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
    rng = generator(draw)
    return grid(rng, (n_q, d_k)), grid(rng, (n_k, d_k)), grid(rng, (n_k, d_v))


@st.composite
def scaling_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` with d_k anywhere in 1..256 and d_v, n_q, n_k all different from it."""
    d_k = draw(sides(256))
    small = st.sampled_from([side for side in range(1, 6) if side != d_k])
    n_q, n_k = draw(small), draw(small)
    d_v = draw(st.sampled_from([side for side in range(1, 7) if side not in (d_k, n_q, n_k)]))
    rng = generator(draw)
    return grid(rng, (n_q, d_k), 1.5), grid(rng, (n_k, d_k), 1.5), grid(rng, (n_k, d_v))


@st.composite
def large_score_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` whose scaled scores reach about ±1e3.

    Q and K hold whole numbers, so their dot products are exact in float32 too: a float32
    head is then judged on its softmax, not on rounding the inputs.
    """
    side = sides(4)
    n_q, n_k, d_k, d_v = draw(side), draw(side), draw(side), draw(side)
    rng = generator(draw)
    return whole(rng, (n_q, d_k), 40), whole(rng, (n_k, d_k), 40), grid(rng, (n_k, d_v))


@st.composite
def masked_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V, mask)`` with an arbitrary mask that keeps one key per query at least."""
    rng, Q, K, V = qkv(draw)
    return Q, K, V, mask(rng, Q.shape[0], K.shape[0])


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
    rng, Q, K, V = qkv(draw)
    Q = np.vstack([Q, grid(rng, (1, Q.shape[1]))])
    drawn = mask(rng, Q.shape[0], K.shape[0])
    drawn[draw(sides(Q.shape[0])) - 1] = False
    return Q, K, V, drawn


@st.composite
def self_attention_inputs(
    draw: st.DrawFn, *, min_n: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Wq, Wk, Wv)`` for a sequence of n tokens."""
    side = sides()
    n, d_model, d_k, d_v = draw(sides(MAX_SIDE, min_side=min_n)), draw(side), draw(side), draw(side)
    rng = generator(draw)
    return (
        grid(rng, (n, d_model)),
        grid(rng, (d_model, d_k), 1.0),
        grid(rng, (d_model, d_k), 1.0),
        grid(rng, (d_model, d_v), 1.0),
    )


def with_permutation(xw: tuple[np.ndarray, ...]) -> st.SearchStrategy[tuple]:
    """``(xw, order)``: the inputs and an order of X's rows."""
    n = xw[0].shape[0]
    return st.permutations(range(n)).map(lambda order: (xw, np.array(order)))


@st.composite
def batched_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, K, V)`` with a leading batch axis: (b, n_q, d_k), (b, n_k, d_k), (b, n_k, d_v)."""
    side = sides(4)
    b, n_q, n_k, d_k, d_v = (draw(side) for _ in range(5))
    rng = generator(draw)
    return grid(rng, (b, n_q, d_k)), grid(rng, (b, n_k, d_k)), grid(rng, (b, n_k, d_v))
