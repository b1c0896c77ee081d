"""Beginner code with two mistakes: the scores are never divided by sqrt(d_k) AND softmax exponentiates without subtracting the max."""
# must-fail: attention.worked_example, attention.scaling, softmax.large_logits, attention.large_logits
# diagnosis: missing_scale, softmax_no_max_shift

import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x)
    sum_exp_x = np.sum(exp_x, axis=axis, keepdims=True)
    return exp_x / sum_exp_x


def attention(Q, K, V, mask=None):
    scores = np.dot(Q, K.T)
    if mask is not None:
        scores = np.where(mask == True, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    output = np.dot(weights, V)
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.dot(X, Wq)
    K = np.dot(X, Wk)
    V = np.dot(X, Wv)
    output, weights = attention(Q, K, V, mask)
    return output, weights


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
