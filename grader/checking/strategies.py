"""What every assignment's Hypothesis strategies draw their arrays from.

An assignment's strategies (``grader/assignments/<name>/strategies.py``) draw float64
arrays of modest size with finite values from :func:`arrays`; sizes stay small so a shrunk
counterexample fits on a screen. Sides start at 1 on purpose: a 1 x 1 head is a real
edge case.

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

A course secret (grader.checking.secret, :func:`use_course_key`) is mixed into every seed, so the
grade of record's values cannot be worked out from this public code.

The composite strategies share :class:`Arrays` (the example's generator and kind of
values), so no strategy object is built, and validated, at every draw: every array
value of an example must come from it, drawn after every size the example needs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from grader.checking import secret

#: The largest side :func:`sides` draws by default (6): a shrunk counterexample fits on a
#: screen. A course's strategies may bound their own sides by it: ``min(5, MAX_SIDE)``.
MAX_SIDE = 6
# Readable values are multiples of 1/STEPS_PER_UNIT: exact in float32, and short in a repro.
STEPS_PER_UNIT = 4
seeds = st.integers(0, 2**16 - 1)
full_precision = st.booleans()  # shrinks to False: readable values
_course_entropy: tuple[int, ...] = ()


def use_course_key(key: str | None) -> None:
    """Draw every example's values from ``key`` (grader.checking.secret.course_key) too, from now
    on; None: the public examples. Set per check run by grader.engine.plugin."""
    global _course_entropy
    _course_entropy = secret.entropy_words(key) if key is not None else ()


def values(bound: float = 3.0) -> st.SearchStrategy[float]:
    """One float in [-bound, bound] (for scalars; arrays come from a seed).

    ``bound`` (default 3.0): the largest magnitude drawn; never nan, inf nor subnormal. A
    Hypothesis strategy, drawn and shrunk by Hypothesis itself (towards 0). Example::

        @check(X=matrices(), c=values(2.0))
        def test_scales(submission, X, c): ...
    """
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@functools.cache  # strategies are immutable: built (and validated) once, not at every draw
def sides(max_side: int = MAX_SIDE, min_side: int = 1) -> st.SearchStrategy[int]:
    """One size of an array, an int in [min_side, max_side]: a strategy Hypothesis draws and
    shrinks (towards ``min_side``).

    ``max_side`` (default :data:`MAX_SIDE`, 6) and ``min_side`` (default 1: a 1 x 1 input
    is a real edge case; 2 where a property needs two rows). Draw every size of an example
    before its values (:func:`arrays`), so sizes shrink on their own. Example::

        @st.composite
        def matrices(draw):
            n, d = draw(sides(5)), draw(sides(min_side=2))
            return arrays(draw).floats((n, d))
    """
    return st.integers(min_side, max_side)


@dataclass(frozen=True)
class Arrays:
    """An example's source of array values (see the module docstring): ``rng`` draws the
    readable values, and ``jitter``, for a full-precision example, moves each by up to half
    a step. The readable values are the same either way, so a failure shrinks from full
    precision to readable wherever the readable values fail too; and a multiple of a step
    moved by a uniform part of one is a uniform value: nothing tells it from any other.

    A check never builds one: :func:`arrays` draws it, and every array of the example comes
    from its methods, :meth:`floats` and :meth:`mask`.

    Fields:

    rng
        The :class:`numpy.random.Generator` of the readable values, seeded from the drawn
        seed (and the course secret, if set).
    jitter
        The generator that moves each value by up to half a step in a full-precision
        example; ``None`` in a readable one.

    Example::

        source = arrays(draw)
        X, gamma = source.floats((n, d)), source.floats((d,), 2.0)
    """

    rng: np.random.Generator
    jitter: np.random.Generator | None

    def floats(self, shape: tuple[int, ...], bound: float = 3.0, *, step: float = 1 / STEPS_PER_UNIT) -> np.ndarray:
        """A float64 array of ``shape`` with values in [-bound, bound]: multiples of ``step``
        (a quarter; 1 for whole numbers), each moved by up to half a step at full precision.

        ``shape``: a tuple of sizes drawn before (:func:`sides`); ``bound`` (default 3.0);
        ``step`` (default 1/4). Example: ``source.floats((n, d))``,
        ``source.floats((d,), 2.0, step=1.0)``.
        """
        steps = int(bound / step)
        readable = self.rng.integers(-steps, steps, size=shape, endpoint=True) * float(step)
        if self.jitter is None:
            return readable
        return readable + self.jitter.uniform(-step / 2, step / 2, size=shape)

    def mask(self, rows: int, cols: int) -> np.ndarray:
        """A bool (rows, cols) mask with at least one True in every row.

        ``rows`` and ``cols``: its shape (the queries and the keys); about half its entries
        True, and one True at least in each row, so no row is fully masked. Example:
        ``source.mask(n, n)``.
        """
        drawn = self.rng.random((rows, cols)) < 0.5
        drawn[np.arange(rows), self.rng.integers(0, cols, size=rows)] = True
        return drawn


JITTER_STREAM = 1  # told apart from the readable values' stream by its seed's length


def arrays(draw: st.DrawFn) -> Arrays:
    """The example's source of array values: drawn last, after every size it needs.

    ``draw``: the ``draw`` of an ``@st.composite`` strategy. It draws a seed and whether the
    example is readable or full precision (two choices Hypothesis shrinks), and returns the
    :class:`Arrays` every array value of the example must come from. Draw it once per
    example, after all the sizes. Example::

        @st.composite
        def layer_inputs(draw):
            n, d = draw(sides(5)), draw(sides())
            source = arrays(draw)
            return source.floats((n, d)), source.floats((d,), 2.0), source.floats((d,), 2.0)
    """
    seed, precise = draw(seeds), draw(full_precision)
    entropy = [seed, *_course_entropy]
    jitter = np.random.default_rng([*entropy, JITTER_STREAM]) if precise else None
    return Arrays(np.random.default_rng(entropy if _course_entropy else seed), jitter)
