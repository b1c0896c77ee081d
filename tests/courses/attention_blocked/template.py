"""One attention head in NumPy, in this course's convention: a boolean mask is True where
a query may NOT attend."""

import numpy as np  # noqa: F401 (for your code)


def softmax(x, axis=-1):
    """The softmax of x along axis."""
    raise NotImplementedError


def attention(Q, K, V, mask=None):
    """(out, A): A = softmax(Q K^T / sqrt(d_k)) with A[i, j] = 0 where mask[i, j] is True."""
    raise NotImplementedError


def self_attention(X, Wq, Wk, Wv, mask=None):
    """attention of the projections of X, with the same mask."""
    raise NotImplementedError


def causal_mask(n):
    """(n, n) bool, True above the diagonal: where token i may not see token j > i."""
    raise NotImplementedError
