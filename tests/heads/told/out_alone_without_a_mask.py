"""attention returns out alone when no mask is given, and (out, A) with one."""
# must-fail: attention.shapes, attention.worked_example
# diagnosis: none
# told: returns an array of shape (3, 2), where the lesson's code returns a tuple (or list) of 2 values

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is None:
        return softmax(scores) @ V
    A = softmax(np.where(mask, scores, -np.inf))
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
