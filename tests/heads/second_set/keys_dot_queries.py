"""attention computes the scores as np.dot(K, Q.T), the transpose of Q K^T; the lesson's example has Q == K, where the two agree. Raises when n_q != n_k."""
# must-fail: attention.shapes, attention.matches_reference, self_attention.projections
# diagnosis: scores_transposed

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.dot(K, Q.T) / np.sqrt(Q.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
