"""softmax divides by np.sum(e), the total over the whole array, so the whole matrix sums to 1 rather than each row."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, attention.rows_sum_to_one
# diagnosis: softmax_global_normalization

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e)


def attention(Q, K, V, mask=None):
    scale = np.sqrt(Q.shape[-1])
    scores = np.dot(Q, K.T) / scale
    if mask is not None:
        scores[~mask] = -np.inf
    weights = softmax(scores)
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X.dot(Wq), X.dot(Wk), X.dot(Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
