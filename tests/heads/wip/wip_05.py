"""Work in progress: attention does its own softmax because softmax is not written yet.

Finished: attention, correct, with its OWN inline softmax (per-row max shift, exp, divide by
row sums), np.dot for the scores, scaled by sqrt(d_k), mask filled with -inf;
self_attention, correct (np.matmul projections, mask passed on);
causal_mask, correct (double loop filling True where j <= i in a bool array).
Unfinished: softmax is a bare `raise NotImplementedError`.
"""
# unfinished: softmax
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    raise NotImplementedError


def attention(Q, K, V, mask=None):
    d_k = Q.shape[1]
    scores = np.dot(Q, K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # softmax by hand for now (softmax() is not done yet)
    scores = scores - np.max(scores, axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / np.sum(weights, axis=1, keepdims=True)
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.matmul(X, Wq)
    K = np.matmul(X, Wk)
    V = np.matmul(X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            m[i, j] = True
    return m
