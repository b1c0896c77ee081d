"""attention scales the queries with Q /= np.sqrt(d_k), changing the caller's Q array in place (the results themselves are right)."""
# must-fail: attention.inputs_unchanged
# diagnosis: mutates_inputs

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    Q /= np.sqrt(Q.shape[-1])  # scale the queries once, saves a division on the big matrix
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
