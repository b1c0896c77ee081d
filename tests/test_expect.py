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
