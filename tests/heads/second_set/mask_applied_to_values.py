"""attention leaves the scores unmasked and instead zeroes the masked value rows for each query (V * mask[i, :, None]); the returned weights ignore the mask."""
# must-fail: mask.no_future_leakage, mask.arbitrary, attention.matches_reference
# diagnosis: none

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    weights = softmax(Q @ K.T / np.sqrt(d_k), axis=-1)
    if mask is None:
        return weights @ V, weights
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i in range(Q.shape[0]):
        visible_values = V * mask[i, :, None]  # drop the values this query may not see
        out[i] = weights[i] @ visible_values
    return out, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
