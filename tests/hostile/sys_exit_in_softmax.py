"""softmax calls sys.exit(); attention has its own inline softmax, the rest is the lesson's."""
# must-fail: softmax.*
# must-pass: causal_mask.*, attention.*, mask.*, self_attention.*, extension.*
# report-status: graded

import sys

import numpy as np


def softmax(x, axis=-1):
    sys.exit()


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    A = e / e.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
