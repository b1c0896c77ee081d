"""softmax adds an epsilon of 1e-3 to the denominator "to avoid division by zero", so rows sum to slightly less than 1."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, attention.rows_sum_to_one
# diagnosis: none

import numpy as np

EPS = 1e-3


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / (e.sum(axis=axis, keepdims=True) + EPS)


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
