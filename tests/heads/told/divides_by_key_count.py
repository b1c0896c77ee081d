"""attention divides the scores by the number of keys, len(K), instead of sqrt(d_k)."""
# must-fail: attention.scaling
# diagnosis: none
# told: divides its scores by n_k, the number of keys

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / K.shape[0]
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
