"""The _scale() helper uses // instead of /, so the scaled scores are floored to whole numbers."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: floor_division

import numpy as np


def _scale(scores, d_k):
    return scores // np.sqrt(d_k)


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = _scale(Q @ K.T, Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
