"""Two mistakes: attention never looks at its mask argument AND it divides the scores by d_k instead of sqrt(d_k)."""
# must-fail: attention.worked_example, attention.scaling, mask.no_future_leakage, mask.arbitrary
# diagnosis: mask_ignored, scale_by_dk

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    dk = Q.shape[-1]
    A = softmax(Q @ K.T / dk)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
