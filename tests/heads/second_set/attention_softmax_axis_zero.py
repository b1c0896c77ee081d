"""softmax itself is right, but attention calls it with axis=0, so each column of the weights sums to 1 instead of each row."""
# must-fail: attention.rows_sum_to_one, attention.worked_example, attention.matches_reference
# diagnosis: attention_softmax_axis

import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = K.shape[1]
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=0)  # normalise each query's scores
    output = np.matmul(weights, V)
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.matmul(X, Wq)
    K = np.matmul(X, Wk)
    V = np.matmul(X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
