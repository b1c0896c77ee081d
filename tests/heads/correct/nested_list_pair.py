"""Correct head that returns its pair as nested Python lists: [out.tolist(), A.tolist()], which `out, A = attention(...)` unpacks whatever the shapes."""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.asarray(Q) @ np.swapaxes(np.asarray(K), -1, -2) / np.sqrt(np.shape(Q)[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return [(A @ V).tolist(), A.tolist()]


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)).tolist()
