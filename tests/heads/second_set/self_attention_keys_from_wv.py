"""self_attention projects the keys with Wv and the values with Wk (key and value roles swapped); it raises whenever d_k != d_v."""
# must-fail: self_attention.projections, self_attention.mask_passed
# diagnosis: self_attention_mixed_projections

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    queries = X @ Wq
    keys = X @ Wv
    values = X @ Wk
    return attention(queries, keys, values, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
