"""grader.checking.expect's fast tolerance test agrees with numpy.isclose everywhere the checks use it."""

from __future__ import annotations

import numpy as np
import pytest

from grader.checking.expect import ATOL, RTOL, close_mask

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, 1e300, 1.0, 1.0 + 1e-5, 1.0 + 1e-3])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int8, np.bool_])
def test_close_mask_is_numpy_isclose(dtype):
    rng = np.random.default_rng(0)
    for _ in range(200):
        shape = tuple(rng.integers(1, 5, size=rng.integers(0, 3)))
        expected = rng.choice(SPECIAL, size=shape) * rng.choice([1.0, 3.0, 1e-4], size=shape)
        noise = rng.choice([0.0, 1e-7, 1e-5, 1e-3, np.nan, np.inf], size=shape)
        with np.errstate(all="ignore"):
            got = (expected + noise).astype(dtype)
        want = np.isclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
        assert np.array_equal(close_mask(got, expected), want), (got, expected)


def test_unchanged_compares_arrays_and_numbers_and_fails_on_a_change():
    from grader.checking.expect import unchanged
    from grader.checking.outcomes import CheckFailure

    X = np.arange(6.0).reshape(2, 3)
    unchanged("layer_norm", "X", X, X.copy())
    unchanged("layer_norm", "eps", 1e-5, 1e-5)  # a number argument: compared by its value, never an error of the check
    for before, after in ((X, X + 1), (X, X.ravel()), (X, None), (1e-5, 2e-5), (1e-5, [1e-5])):
        with pytest.raises(CheckFailure, match="changed its argument"):
            unchanged("layer_norm", "X", before, after)


def test_a_pair_is_read_as_unpacking_reads_it():
    from grader.checking.expect import pair
    from grader.checking.outcomes import CheckFailure

    out, A = np.ones((3, 3)), np.full((3, 3), 0.5)
    for value in ((out, A), np.stack([out, A])):
        got = pair(value, "attention(Q, K, V)")
        assert np.array_equal(got[0], out) and np.array_equal(got[1], A)
    with pytest.raises(CheckFailure, match="should return a pair"):
        pair(np.ones((2, 3)), "attention(Q, K, V)")  # out alone, for two queries


def test_raises_passes_the_promised_exception_and_its_built_in_subclasses_only():
    from grader.checking import expect
    from grader.checking.outcomes import CallRaised, CheckFailure, NotImplementedYet

    def raising(kind: str, text: str = "k is larger than the row"):
        def top_k(scores, k):
            raise CallRaised(f"top_k() raised {kind}: {text}", exception_type=kind, line=3, text=text)
        return top_k

    scores = np.ones((2, 3))
    expect.raises(ValueError, "top_k(s, 9)", raising("ValueError"), scores, 9)
    expect.raises(LookupError, "top_k(s, 9)", raising("IndexError"), scores, k=9)
    expect.raises(ValueError, "top_k(s, 9)", raising("ValueError"), scores, 9, match="larger")
    for function, said in (
        (raising("TypeError"), "should raise ValueError; it raised TypeError: k is larger than the row"),
        (lambda scores, k: None, "should raise ValueError; it returned None"),
        (lambda scores, k: scores[:, :2], r"should raise ValueError; it returned an array of shape \(2, 2\)"),
        (raising("ValueError", "bad k"), "does not say 'larger'"),
    ):
        with pytest.raises(CheckFailure, match=said):
            expect.raises(ValueError, "top_k(s, 9)", function, scores, 9, match="larger")

    # A subclass of the student's own is a ValueError; their own class named ValueError is not.
    def raised_kinds(kind: str, kinds: tuple[str, ...]):
        def top_k(scores, k):
            raise CallRaised(f"top_k() raised {kind}: no", exception_type=kind, line=3, text="no", kinds=kinds)
        return top_k

    expect.raises(ValueError, "top_k(s, 9)", raised_kinds("WidthError", ("ValueError", "Exception", "BaseException")), scores, 9)
    expect.raises((TypeError, ValueError), "top_k(s, 9)", raising("ValueError"), scores, 9)
    with pytest.raises(CheckFailure, match=r"should raise ValueError; it raised a class of the file's own named ValueError \(it does not derive"):
        expect.raises(ValueError, "top_k(s, 9)", raised_kinds("ValueError", ("Exception", "BaseException")), scores, 9)
    with pytest.raises(CheckFailure, match="should raise TypeError or KeyError; it raised ValueError"):
        expect.raises((TypeError, KeyError), "top_k(s, 9)", raising("ValueError"), scores, 9)

    def stub(scores, k):
        raise NotImplementedYet("top_k() is not written yet", exception_type="NotImplementedError", line=1)

    with pytest.raises(NotImplementedYet):
        expect.raises(ValueError, "top_k(s, 9)", stub, scores, 9)


def test_a_tolerance_per_row_allows_each_row_its_own_and_says_which_it_broke():
    from grader.checking import expect
    from grader.checking.outcomes import CheckFailure

    expected = np.array([[1.0, 2.0], [1000.0, 2000.0]])
    slack = np.array([1e-5, 1e-1])[:, None]
    expect.close(expected + np.array([[0.0, 0.0], [0.05, -0.05]]), expected, "x", rtol=0.0, atol=slack)
    with pytest.raises(CheckFailure, match=r"x is wrong at index \[0, 1\]: got 2.001, expected 2 \(allowed there: 1e-05"):
        expect.close(expected + np.array([[0.0, 1e-3], [0.0, 0.0]]), expected, "x", rtol=0.0, atol=slack)
