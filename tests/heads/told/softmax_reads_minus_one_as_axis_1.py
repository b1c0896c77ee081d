"""softmax keeps the lesson's default axis=-1, but turns -1 into 1 before using it: right on 2-D arrays, wrong along the middle axis of 3-D ones."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference
# diagnosis: none
# told: axis 1 where it is given axis=-1 or none
# not-told: takes axis=-1 by default

import numpy as np


def softmax(x, axis=-1):
    if axis == -1:
        axis = 1  # rows
    x = np.asarray(x, dtype=float)
    ex = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return ex / np.sum(ex, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.dot(Q, K.T) / np.sqrt(K.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, float("-inf"))
    weights = softmax(scores)
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
