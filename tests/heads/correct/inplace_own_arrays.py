"""Correct head that works in place, but only on arrays it created itself (never on its inputs)."""

import numpy as np


def softmax(x, axis=-1):
    e = np.array(x, dtype=float)  # a fresh copy we are free to overwrite
    e -= e.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T).astype(float)  # a fresh float array, safe to modify
    scores /= np.sqrt(d_k)
    if mask is not None:
        scores[np.logical_not(mask)] = -np.inf
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    mask = np.ones((n, n), dtype=bool)
    mask[np.triu_indices(n, k=1)] = False
    return mask
