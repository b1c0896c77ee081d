"""Assertions for checks: each raises a CheckFailure a student can read.

Tolerances are deliberate and live here: a head computing in float32 passes (relative
error about 1e-6), one that rounds its weights to 3 decimals (error up to 5e-4) fails.

A check imports this module as ``expect`` (``from grader.authoring.checks import
expect``) and calls its assertions by name: :func:`array` and :func:`pair` read what the
student's function returned, :func:`shape`, :func:`close`, :func:`finite`,
:func:`unchanged`, :func:`same_attention`, :func:`sums_to_one` and :func:`holds` test it, and :func:`raises`
expects a call to refuse its input. Each takes a ``what``
(or ``call``, ``message``): the words the student's feedback is made of, naming the value
as the student would write it (``"layer_norm(X, gamma, beta)"``, ``"row 0 of A"``).
:func:`describe` and :func:`close_mask` help write a check's own failure. Example::

    out = expect.array(submission.layer_norm(X, gamma, beta), "layer_norm(X, gamma, beta)")
    expect.shape(out, X.shape, "layer_norm(X, gamma, beta)")
    expect.close(out, reference_layer_norm(X, gamma, beta), "layer_norm(X, gamma, beta)")
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from grader.checking.outcomes import CallRaised, CheckFailure, NotImplementedYet
from grader.sandbox.wire import UnsupportedValue

#: The relative tolerance of :func:`close` (and :func:`same_attention`) by default.
RTOL = 1e-4
#: The absolute tolerance of :func:`close` by default; a check that allows more for a value
#: computed with more rounding adds to it: ``atol=expect.ATOL + slack``.
ATOL = 1e-5
#: ``np.allclose``'s tolerances, which :func:`sums_to_one` holds row sums to.
ALLCLOSE_RTOL = 1e-5
ALLCLOSE_ATOL = 1e-8


def describe(value: Any) -> str:
    """A short description of a returned value, for messages.

    ``value``: anything a student's function returned. Example: ``describe(np.zeros((2, 3)))``
    is ``"an array of shape (2, 3) and dtype float64"``; a tuple is ``"a tuple of 2
    values"``, None ``"None"``::

        raise CheckFailure(f"row_stats(X) should return a pair (mean, var); it returned {expect.describe(value)}")
    """
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} value{'' if len(value) == 1 else 's'}"
    if value is None:
        return "None"
    return str(value) if isinstance(value, UnsupportedValue) else type(value).__name__


def array(value: Any, call: str, *, as_float: bool = True) -> np.ndarray:
    """``value`` as a (float) array, or a failure saying what came back instead. A list
    of arrays of one shape (rows, say) is the array they stack into.

    ``value``: what the student's function returned (through ``submission``); ``call``: the
    call as the student would write it, for the message ("layer_norm(X) should return an
    array; it returned None"); ``as_float`` (default True): the array converted to float64
    (False: as it came, to check a dtype, such as a bool mask). Returns the array.
    Example::

        flags = expect.array(submission.constant_rows(X), "constant_rows(X)", as_float=False)
    """
    if isinstance(value, tuple) and value and all(isinstance(item, np.ndarray) for item in value):
        if len({item.shape for item in value}) == 1:
            value = np.stack(value)
    if not isinstance(value, np.ndarray):
        raise CheckFailure(f"{call} should return an array; it returned {describe(value)}")
    return value.astype(np.float64) if as_float else value


def pair(value: Any, call: str, names: tuple[str, str] = ("out", "A")) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays from a call that returns a pair (attention's ``(out, A)``; ``names`` says
    what the handout calls them), or a failure saying what came back instead.

    ``value``: what the student's function returned; ``call``: the call as the student
    would write it; ``names`` (default ``("out", "A")``): the two values' names in the
    handout. Each part is read as by :func:`array` (float64). An array of two parts of one
    shape (``np.stack([out, A])``, or nested lists of that shape) is read as the pair that
    ``out, A = value`` unpacks. Example::

        mean, var = expect.pair(submission.row_stats(X), "row_stats(X)", ("mean", "var"))
    """
    first, second = names
    if isinstance(value, np.ndarray) and value.ndim >= 3 and len(value) == 2:
        value = (value[0], value[1])  # two parts of one shape, stacked (as `a, b = value` reads them)
    if not isinstance(value, tuple) or len(value) != 2:
        raise CheckFailure(f"{call} should return a pair ({first}, {second}); it returned {describe(value)}")
    return array(value[0], f"{call}[0] ({first})"), array(value[1], f"{call}[1] ({second})")


def shape(got: np.ndarray, expected: tuple[int, ...], what: str) -> None:
    """``got`` has the shape ``expected``, or a failure ("layer_norm(X) has shape (3,),
    expected (3, 4)").

    ``got``: an array (from :func:`array`); ``expected``: the shape, a tuple of ints;
    ``what``: the value, as the student would write it. Example::

        expect.shape(out, (n, d), "layer_norm(X, gamma, beta)")
    """
    if got.shape != tuple(expected):
        raise CheckFailure(f"{what} has shape {got.shape}, expected {tuple(expected)}", expected=expected, got=got.shape)


def holds(condition: Any, message: str, *, expected: Any = None, got: Any = None) -> None:
    """``condition`` is true (every entry, for an array), or a failure with ``message``: for
    a property no other assertion states.

    ``condition``: a bool or a bool array; ``message``: the whole sentence the student
    reads; ``expected`` and ``got`` (default None): what the report's counterexample shows
    as expected and got. Example::

        expect.holds(flags.dtype == bool, f"constant_rows(X) should be a bool array; its dtype is {flags.dtype}")
    """
    if not bool(np.all(condition)):
        raise CheckFailure(message, expected=expected, got=got)


def close_mask(got: np.ndarray, expected: np.ndarray, *, rtol: float = RTOL, atol: float | np.ndarray = ATOL) -> np.ndarray:
    """``np.isclose(got, expected, rtol, atol, equal_nan=True)`` for arrays, without its
    argument handling: the checks compare tens of thousands of small arrays per batch.

    ``got`` and ``expected``: arrays of one shape (or that broadcast); ``rtol`` and ``atol``
    default to :data:`RTOL` and :data:`ATOL`. Returns a bool array: where ``got`` is close
    to ``expected``. An infinite expected value is close only to itself. Example::

        wrong_rows = ~expect.close_mask(got, expected).all(axis=-1)
    """
    y = np.asarray(expected, dtype=np.result_type(expected, 1.0))
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.abs(got - y) <= atol + rtol * np.abs(y)) & np.isfinite(y) | (got == y) | (np.isnan(got) & np.isnan(y))


def close(
    got: np.ndarray, expected: np.ndarray, what: str, *, rtol: float = RTOL, atol: float | np.ndarray = ATOL
) -> None:
    """``got`` equals ``expected`` within tolerance, nan where expected is nan.

    ``got``: the student's array; ``expected``: the reference's, computed after the call;
    ``what``: the value as the student would write it; ``rtol`` and ``atol`` (defaults
    :data:`RTOL`, :data:`ATOL`): ``|got - expected| <= atol + rtol * |expected|``. ``atol``
    may be an array that broadcasts against ``expected``: a tolerance per entry, or per row
    (``slack[:, None]``), where rounding is larger in some entries than in others (the
    message then quotes the tolerance of the wrong entry). Checks the shape first
    (:func:`shape`); the message names the first wrong entry ("the mean of each row of
    layer_norm(X) is wrong at index [1]: got 0.5, expected 0"). Example::

        expect.close(got, reference_layer_norm(X, gamma, beta), "layer_norm(X, gamma, beta)")
        expect.close(got, expected, "layer_norm(X, gamma, beta)", atol=expect.ATOL + slack[:, None])
    """
    shape(got, expected.shape, what)
    ok = close_mask(got, expected, rtol=rtol, atol=atol)
    if ok.all():
        return
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    where = f" at index {list(index)}" if index else ""
    allowed = ""
    if np.ndim(atol):
        allowed = f" (allowed there: {float(np.broadcast_to(atol, expected.shape)[index]):.2g} + {rtol:g}·|expected|)"
    raise CheckFailure(
        f"{what} is wrong{where}: got {got[index]:.6g}, expected {expected[index]:.6g}{allowed}",
        expected=expected,
        got=got,
    )


def sums_to_one(sums: np.ndarray, what: str) -> None:
    """Every entry of ``sums`` (the sums of rows that must be probability distributions) is
    1 as ``np.allclose`` holds it: the tolerance of a lesson's own ``assert
    np.allclose(A.sum(axis=1), 1.0)`` (rtol 1e-5, atol 1e-8), tighter than :func:`close`'s,
    so weights divided by ``sum + 1e-4`` fail, and weights computed in float32 pass.

    ``sums``: an array of row sums; ``what``: the sums as the student would write them. The
    message names the first row that is not 1 ("A.sum(axis=-1) is wrong at index [0]: got
    0.9999, expected 1"). Example::

        expect.sums_to_one(A.sum(axis=-1), "A.sum(axis=-1)")
    """
    close(sums, np.ones(np.shape(sums)), what, rtol=ALLCLOSE_RTOL, atol=ALLCLOSE_ATOL)


def raises(
    exception: type[BaseException] | tuple[type[BaseException], ...],
    call: str,
    function: Callable[..., Any],
    *args: Any,
    match: str | None = None,
    **kwargs: Any,
) -> None:
    """``function(*args, **kwargs)`` raises ``exception`` (an instance of it, as ``except``
    catches: ``IndexError`` for ``LookupError``, the student's ``class WidthError(ValueError)``
    for ``ValueError``), or a failure saying what it did instead: what it returned, or what
    else it raised.

    ``exception``: the exception class the handout promises, as ``ValueError``, or a tuple
    of the classes it accepts, as ``except`` takes them (``(ValueError, AssertionError)``
    where an ``assert`` is as good a refusal); ``call``: the call as the student would write
    it; ``function``: the student's function (``submission.top_k``), called with ``args``
    and ``kwargs``; ``match`` (default None): a regular expression the exception's message
    must contain (``re.search``), only where the handout fixes the wording. The student's
    code runs in its own process, so only names cross: a built-in class is matched by the
    built-in classes the raised one derives from (a class of the student's own merely named
    ValueError is not one), a course's own class by its name. A stub's NotImplementedError
    passes through, so the function is told it is not written yet. Example::

        expect.raises(ValueError, "top_k(scores, 10)", submission.top_k, scores, 10)
    """
    try:
        value = function(*args, **kwargs)
    except NotImplementedYet:
        raise  # a stub is told it is one, whatever the check expected
    except CallRaised as raised:
        if not _is_a(raised, exception):
            what = raised.exception_type
            if what in {kind.__name__ for kind in _classes(exception)}:  # a class of its own, named as a built-in one
                what = f"a class of the file's own named {what} (it does not derive from the built-in {what})"
            raise CheckFailure(f"{call} should raise {_named(exception)}; it raised {what}: {raised.text}") from None
        if match is not None and not re.search(match, raised.text):
            raise CheckFailure(
                f"{call} raised {raised.exception_type} as it should, but its message {raised.text!r} does not say {match!r}"
            ) from None
        return
    raise CheckFailure(f"{call} should raise {_named(exception)}; it returned {describe(value)}", got=value)


def _is_a(raised: CallRaised, exception: type[BaseException] | tuple[type[BaseException], ...]) -> bool:
    """Whether what the student's call raised is an instance of ``exception`` (of one of a
    tuple). Only names cross the sandbox: a built-in class is matched by the built-in classes
    the raised one derives from (the student's ``class WidthError(ValueError)`` is a
    ValueError, their own ``class ValueError(Exception)`` is not); a course's own class by
    its name."""
    return any(
        kind.__name__ in raised.kinds if vars(builtins).get(kind.__name__) is kind else kind.__name__ == raised.exception_type
        for kind in _classes(exception)
    )


def _classes(exception: type[BaseException] | tuple[type[BaseException], ...]) -> tuple[type[BaseException], ...]:
    return exception if isinstance(exception, tuple) else (exception,)


def _named(exception: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    """``ValueError``, or ``ValueError or AssertionError`` for a tuple."""
    return " or ".join(kind.__name__ for kind in _classes(exception))


def same_attention(
    got: tuple[np.ndarray, np.ndarray],
    expected: tuple[np.ndarray, np.ndarray],
    *,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> None:
    """``(out, A)`` equals the expected pair; A is compared first, since out follows from it.

    ``got``: the student's pair (from :func:`pair`); ``expected``: the reference's;
    ``rtol`` and ``atol`` as in :func:`close`. The messages name them ``A`` and ``out``.
    Example::

        got = expect.pair(submission.attend(Q, K, V), "attend(Q, K, V)")   # a function returning (out, A)
        expect.same_attention(got, reference_attend(Q, K, V))
    """
    close(got[1], expected[1], "A", rtol=rtol, atol=atol)
    close(got[0], expected[0], "out", rtol=rtol, atol=atol)


def unchanged(function: str, name: str, before: Any, after: Any) -> None:
    """The argument ``name`` of ``function`` is as it was passed (``after``: as the call left it).

    ``function`` and ``name``: for the message ("layer_norm changed its argument X in
    place; work on a copy instead"); ``before``: the check's own array, as it passed it (it
    is never changed: the student's process got a copy); ``after``: that argument as the
    student's call left it, from ``submission.call(..., return_args=True).args_after``.
    A number argument (``eps``) is compared by its value. Example::

        called = submission.call("layer_norm", [X, gamma, beta], return_args=True)
        for name, before, after in zip(("X", "gamma", "beta"), (X, gamma, beta), called.args_after):
            expect.unchanged("layer_norm", name, before, after)
    """
    if isinstance(before, np.ndarray):
        changed = (
            not isinstance(after, np.ndarray) or before.shape != after.shape
            or not np.array_equal(before, after, equal_nan=True)
        )
    else:  # a number is never changed in place; its value read back must still be the same
        changed = not isinstance(after, (int, float, np.number)) or not np.array_equal(before, after, equal_nan=True)
    holds(not changed, f"{function} changed its argument {name} in place; work on a copy instead", expected=before, got=after)


def finite(got: np.ndarray, what: str) -> None:
    """Every entry of ``got`` is finite, or a failure naming the first nan or inf ("layer_norm(X)
    contains nan at index [2, 0]; every entry should be finite").

    ``got``: an array (from :func:`array`); ``what``: the value, as the student would write
    it. Example::

        expect.finite(out, "layer_norm(X, np.ones(d), np.zeros(d))")
    """
    bad = ~np.isfinite(got)
    if bad.any():
        index = [int(i) for i in np.argwhere(bad)[0]]
        raise CheckFailure(f"{what} contains {got[tuple(index)]} at index {index}; every entry should be finite", got=got)
