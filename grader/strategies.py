"""Named Hypothesis strategies for the inputs the checks feed to a submission.

Every strategy draws float64 arrays of modest size with finite values; sizes stay small
so a shrunk counterexample fits on a screen. Sides start at 1 on purpose: a 1 x 1 head
is a real edge case.

An example's array values cost Hypothesis two choices rather than one per element: a
seed, from which one ``numpy.random`` generator makes every array of the example, and
whether the values are *readable* (multiples of a quarter, exact in float32 too, short
to print) or *full precision* (as any student's own test data, ``rng.normal`` and the
like, would be). The sizes are drawn and shrunk by Hypothesis. Shrinking a failing check
is most of a buggy head's grading time: with one choice per element Hypothesis ran a few
hundred examples to shrink a head fed three 6 x 6 matrices; with a seed it shrinks the
sizes to the smallest that fail and the seed to the first that fails, in about a dozen.
Full precision shrinks to readable wherever a head fails on both, so counterexamples
stay short; but a head cannot pass by telling the grader's inputs apart from anyone
else's (answering the lesson's way only on a grid, say): about half of every check's
examples are full precision.

A course secret (grader.secret, :func:`use_course_key`) is mixed into every seed, so the
grade of record's values cannot be worked out from this public code.

The composite strategies share :class:`Arrays` (the example's generator and kind of
values), so no strategy object is built, and validated, at every draw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader import secret

MAX_SIDE = 6
# Readable values are multiples of 1/STEPS_PER_UNIT: exact in float32, and short in a repro.
STEPS_PER_UNIT = 4
seeds = st.integers(0, 2**16 - 1)
full_precision = st.booleans()  # shrinks to False: readable values
_course_entropy: tuple[int, ...] = ()


def use_course_key(key: str | None) -> None:
    """Draw every example's values from ``key`` (grader.secret.course_key) too, from now
    on; None: the public examples. Set per check run by grader.plugin."""
    global _course_entropy
    _course_entropy = secret.entropy_words(key) if key is not None else ()


def values(bound: float = 3.0) -> st.SearchStrategy[float]:
    """One float in [-bound, bound] (for scalars; arrays come from a seed)."""
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@functools.cache  # strategies are immutable: built (and validated) once, not at every draw
def sides(max_side: int = MAX_SIDE, min_side: int = 1) -> st.SearchStrategy[int]:
    return st.integers(min_side, max_side)


@dataclass(frozen=True)
class Arrays:
    """An example's source of array values (see the module docstring): ``rng`` draws the
    readable values, and ``jitter``, for a full-precision example, moves each by up to half
    a step. The readable values are the same either way, so a failure shrinks from full
    precision to readable wherever the readable values fail too; and a multiple of a step
    moved by a uniform part of one is a uniform value: nothing tells it from any other."""

    rng: np.random.Generator
    jitter: np.random.Generator | None

    def floats(self, shape: tuple[int, ...], bound: float = 3.0, *, step: float = 1 / STEPS_PER_UNIT) -> np.ndarray:
        """A float64 array of ``shape`` with values in [-bound, bound]: multiples of ``step``
        (a quarter; 1 for whole numbers), each moved by up to half a step at full precision."""
        steps = int(bound / step)
        readable = self.rng.integers(-steps, steps, size=shape, endpoint=True) * float(step)
        if self.jitter is None:
            return readable
        return readable + self.jitter.uniform(-step / 2, step / 2, size=shape)

    def mask(self, rows: int, cols: int) -> np.ndarray:
        """A bool (rows, cols) mask with at least one True in every row."""
        drawn = self.rng.random((rows, cols)) < 0.5
        drawn[np.arange(rows), self.rng.integers(0, cols, size=rows)] = True
        return drawn


JITTER_STREAM = 1  # told apart from the readable values' stream by its seed's length


def arrays(draw: st.DrawFn) -> Arrays:
    """The example's source of array values: drawn last, after every size it needs."""
    seed, precise = draw(seeds), draw(full_precision)
    entropy = [seed, *_course_entropy]
    jitter = np.random.default_rng([*entropy, JITTER_STREAM]) if precise else None
    return Arrays(np.random.default_rng(entropy if _course_entropy else seed), jitter)


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


def logits(min_dims: int = 1, max_dims: int = 3, bound: float = 20.0) -> st.SearchStrategy[np.ndarray]:
    """Score arrays of one to three axes, as softmax meets them."""
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=MAX_SIDE)

    @st.composite
    def draw_logits(draw: st.DrawFn) -> np.ndarray:
        shape = draw(shapes)
        return arrays(draw).floats(shape, bound)

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
