"""Correct head that uses np.einsum for every product and accepts a leading batch axis."""

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = np.einsum("...qk,...kv->...qv", A, V)
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.einsum("...nd,de->...ne", X, Wq)
    K = np.einsum("...nd,de->...ne", X, Wk)
    V = np.einsum("...nd,de->...ne", X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
