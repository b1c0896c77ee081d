"""softmax returns exp(x - max) without dividing by the sum: that is normalising by the max (whose exp is 1), so rows do not sum to 1."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, attention.rows_sum_to_one
# diagnosis: none

import numpy as np


def softmax(x, axis=-1):
    return np.exp(x - x.max(axis=axis, keepdims=True))


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
