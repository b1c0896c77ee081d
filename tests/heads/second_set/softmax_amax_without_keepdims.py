"""softmax uses np.amax(x, axis) and np.sum(e, axis) without keepdims, so the reduced arrays broadcast against the wrong axis (and raise for non-square 2-D input)."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, attention.rows_sum_to_one
# diagnosis: softmax_no_keepdims

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.amax(x, axis))
    return e / np.sum(e, axis)


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
