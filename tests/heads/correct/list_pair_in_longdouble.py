"""Correct head that computes in extended precision (np.longdouble) and returns [out, A] as a
list: `out, A = attention(Q, K, V)` unpacks it as the lesson does, and its values are
float64's and more, so it loses no points."""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.longdouble)
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.longdouble) for M in (Q, K, V))
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(np.longdouble(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return [A @ V, A]


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
