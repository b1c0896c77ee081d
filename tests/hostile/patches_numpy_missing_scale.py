"""A head that forgets the sqrt(d_k) scale and patches numpy's comparisons, and pytest and Hypothesis if it can import them, to always agree."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference, mask.arbitrary, mask.fully_masked_row_nan, self_attention.projections, self_attention.mask_passed, extension.batched
# must-pass: softmax.*, causal_mask.values, attention.shapes, attention.rows_sum_to_one, attention.nonnegative, attention.convex_combination, attention.inputs_unchanged, mask.no_future_leakage, mask.rows_sum_to_one, mask.first_token_self, self_attention.permutation_equivariance
# report-status: graded
# diagnosis: missing_scale

import numpy as np

np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *args, **k: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, dtype=bool)
np.isnan = lambda x, *a, **k: np.zeros(np.shape(x), dtype=bool)
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.testing.assert_array_equal = lambda *a, **k: None
np.testing.assert_array_almost_equal = lambda *a, **k: None

try:
    import pytest

    pytest.approx = lambda expected, *a, **k: _AlwaysEqual()
    pytest.fail = lambda *a, **k: None
except ImportError:
    pass

try:
    import hypothesis

    hypothesis.given = lambda *a, **k: (lambda test: (lambda *x, **y: None))
except ImportError:
    pass


class _AlwaysEqual:
    def __eq__(self, other):
        return True


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2)  # no / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
