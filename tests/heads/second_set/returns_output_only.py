"""attention returns np.matmul(weights, V) alone; the attention weights are never returned."""
# must-fail: attention.worked_example, attention.shapes, attention.matches_reference, self_attention.projections
# diagnosis: weights_not_returned

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.amax(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.matmul(Q, np.transpose(K)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
