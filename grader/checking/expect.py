"""Assertions for checks: each raises a CheckFailure a student can read.

Tolerances are deliberate and live here: a head computing in float32 passes (relative
error about 1e-6), one that rounds its weights to 3 decimals (error up to 5e-4) fails.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checking.outcomes import CheckFailure
from grader.sandbox.wire import UnsupportedValue

RTOL = 1e-4
ATOL = 1e-5


def describe(value: Any) -> str:
    """A short description of a returned value, for messages."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} values"
    if value is None:
        return "None"
    return str(value) if isinstance(value, UnsupportedValue) else type(value).__name__


def array(value: Any, call: str, *, as_float: bool = True) -> np.ndarray:
    """``value`` as a (float) array, or a failure saying what came back instead. A list
    of arrays of one shape (rows, say) is the array they stack into."""
    if isinstance(value, tuple) and value and all(isinstance(item, np.ndarray) for item in value):
        if len({item.shape for item in value}) == 1:
            value = np.stack(value)
    if not isinstance(value, np.ndarray):
        raise CheckFailure(f"{call} should return an array; it returned {describe(value)}")
    return value.astype(np.float64) if as_float else value


def pair(value: Any, call: str, names: tuple[str, str] = ("out", "A")) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays from a call that returns a pair (attention's ``(out, A)``; ``names`` says
    what the handout calls them), or a failure saying what came back instead."""
    first, second = names
    if not isinstance(value, tuple) or len(value) != 2:
        raise CheckFailure(f"{call} should return a pair ({first}, {second}); it returned {describe(value)}")
    return array(value[0], f"{call}[0] ({first})"), array(value[1], f"{call}[1] ({second})")


def shape(got: np.ndarray, expected: tuple[int, ...], what: str) -> None:
    if got.shape != tuple(expected):
        raise CheckFailure(f"{what} has shape {got.shape}, expected {tuple(expected)}", expected=expected, got=got.shape)


def holds(condition: Any, message: str, *, expected: Any = None, got: Any = None) -> None:
    if not bool(np.all(condition)):
        raise CheckFailure(message, expected=expected, got=got)


def close_mask(got: np.ndarray, expected: np.ndarray, *, rtol: float = RTOL, atol: float = ATOL) -> np.ndarray:
    """``np.isclose(got, expected, rtol, atol, equal_nan=True)`` for arrays, without its
    argument handling: the checks compare tens of thousands of small arrays per batch."""
    y = np.asarray(expected, dtype=np.result_type(expected, 1.0))
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.abs(got - y) <= atol + rtol * np.abs(y)) & np.isfinite(y) | (got == y) | (np.isnan(got) & np.isnan(y))


def close(got: np.ndarray, expected: np.ndarray, what: str, *, rtol: float = RTOL, atol: float = ATOL) -> None:
    """``got`` equals ``expected`` within tolerance, nan where expected is nan."""
    shape(got, expected.shape, what)
    ok = close_mask(got, expected, rtol=rtol, atol=atol)
    if ok.all():
        return
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    where = f" at index {list(index)}" if index else ""
    raise CheckFailure(
        f"{what} is wrong{where}: got {got[index]:.6g}, expected {expected[index]:.6g}",
        expected=expected,
        got=got,
    )


def same_attention(
    got: tuple[np.ndarray, np.ndarray],
    expected: tuple[np.ndarray, np.ndarray],
    *,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> None:
    """``(out, A)`` equals the expected pair; A is compared first, since out follows from it."""
    close(got[1], expected[1], "A", rtol=rtol, atol=atol)
    close(got[0], expected[0], "out", rtol=rtol, atol=atol)


def unchanged(function: str, name: str, before: Any, after: Any) -> None:
    """The argument ``name`` of ``function`` is as it was passed (``after``: as the call left it)."""
    changed = (
        not isinstance(after, np.ndarray) or before.shape != after.shape
        or not np.array_equal(before, after, equal_nan=True)
    )
    holds(not changed, f"{function} changed its argument {name} in place; work on a copy instead", expected=before, got=after)


def finite(got: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(got)
    if bad.any():
        index = [int(i) for i in np.argwhere(bad)[0]]
        raise CheckFailure(f"{what} contains {got[tuple(index)]} at index {index}; every entry should be finite", got=got)
