"""Checks of ``causal_mask(n)``."""

import numpy as np
from hypothesis import strategies as st

from grader.authoring.checks import expect
from grader.authoring.checks import check


@check(n=st.integers(1, 16), max_examples=16)
def test_values(submission, n):
    """causal_mask(n) is a bool (n, n) array, True on and below the diagonal."""
    mask = expect.array(submission.causal_mask(n), f"causal_mask({n})", as_float=False)
    expect.holds(mask.dtype == np.bool_, f"causal_mask({n}) has dtype {mask.dtype}; it should be bool", got=mask)
    expected = np.tril(np.ones((n, n), dtype=bool))
    expect.shape(mask, expected.shape, f"causal_mask({n})")
    wrong = np.argwhere(mask != expected)
    if wrong.size:
        i, j = (int(v) for v in wrong[0])
        expect.holds(
            False,
            f"causal_mask({n})[{i}, {j}] is {mask[i, j]}; token {i} "
            + ("may" if expected[i, j] else "may not")
            + f" attend to token {j}",
            expected=expected,
            got=mask,
        )
