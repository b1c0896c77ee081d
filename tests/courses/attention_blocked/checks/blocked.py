"""The course's causal mask: True where a token may not look, above the diagonal."""

from __future__ import annotations

import numpy as np

from grader.authoring.checks import check, expect, sides


@check(n=sides(8))
def test_causal_mask_blocks_the_future(submission, n):
    mask = expect.array(submission.causal_mask(n), f"causal_mask({n})", as_float=False)
    expect.shape(mask, (n, n), f"causal_mask({n})")
    expect.holds(mask.dtype == bool, f"causal_mask({n}) should be a bool array; its dtype is {mask.dtype}")
    expected = np.triu(np.ones((n, n), dtype=bool), k=1)
    wrong = np.argwhere(mask != expected)
    if len(wrong):
        i, j = (int(index) for index in wrong[0])
        should = "blocked (True): it is in the future" if j > i else "allowed (False): it is not in the future"
        expect.holds(False, f"causal_mask({n})[{i}, {j}] is {bool(mask[i, j])}; token {j} should be {should} of token {i}")
