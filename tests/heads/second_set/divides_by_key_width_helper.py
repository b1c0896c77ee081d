"""A _scale() helper divides the scores by d_k (K.shape[1]) itself instead of by its square root."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: scale_by_dk

import numpy as np


def _scale(scores, d_k):
    return scores / d_k


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = _scale(np.matmul(Q, K.T), K.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
