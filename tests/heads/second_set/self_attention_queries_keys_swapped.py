"""self_attention projects the queries with Wk and the keys with Wq, so it computes softmax(K Q^T); hidden whenever Wq == Wk."""
# must-fail: self_attention.projections, self_attention.mask_passed
# diagnosis: self_attention_swapped_projections

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.dot(Q, K.T) / np.sqrt(K.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return np.dot(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wk, X @ Wq, X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
