"""attention runs softmax over all keys first and only then zeroes the masked weights with weights[~mask] = 0, so masked rows no longer sum to 1."""
# must-fail: mask.rows_sum_to_one, mask.first_token_self, mask.arbitrary, attention.matches_reference
# diagnosis: mask_after_softmax

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    weights = softmax(scores, axis=-1)
    if mask is not None:
        weights[~mask] = 0.0  # hide the future
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
