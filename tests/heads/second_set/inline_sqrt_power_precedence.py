"""attention writes the scale inline as `Q @ K.T / d ** 1/2`; precedence makes that (Q K^T / d) / 2, not Q K^T / sqrt(d)."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: scale_by_2dk

import numpy as np


def softmax(x, axis=-1):
    z = np.exp(x - x.max(axis, keepdims=True))
    return z / z.sum(axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d = Q.shape[-1]
    s = Q @ K.T / d ** 1/2
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    a = softmax(s)
    return a @ V, a


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
