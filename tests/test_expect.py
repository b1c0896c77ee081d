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
