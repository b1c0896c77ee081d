"""softmax applies a 1-D helper with np.apply_along_axis(..., -1, x): the axis argument is accepted but never used."""
# must-fail: softmax.axis
# diagnosis: softmax_ignores_axis

import numpy as np


def _softmax_1d(v):
    v = v - v.max()
    e = np.exp(v)
    return e / e.sum()


def softmax(x, axis=-1):
    return np.apply_along_axis(_softmax_1d, -1, x)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
