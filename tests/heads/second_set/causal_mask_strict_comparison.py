"""causal_mask compares positions with > instead of >=, so the diagonal is False and a token may not attend to itself."""
# must-fail: causal_mask.values
# diagnosis: causal_mask_strict

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    query_pos = np.arange(n)[:, None]
    key_pos = np.arange(n)[None, :]
    return query_pos > key_pos  # key must come before the query
