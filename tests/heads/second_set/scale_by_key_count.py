"""attention scales by sqrt(len(K)), the number of keys, instead of sqrt(d_k)."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: scale_wrong_dim

import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    num = np.exp(x - m)
    den = np.sum(num, axis=axis, keepdims=True)
    return num / den


def attention(Q, K, V, mask=None):
    n_keys = len(K)
    raw = Q @ K.T
    scaled = raw / np.sqrt(n_keys)
    if mask is not None:
        scaled = np.where(mask, scaled, -np.inf)
    attn = softmax(scaled)
    return attn @ V, attn


def self_attention(X, Wq, Wk, Wv, mask=None):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    return attention(q, k, v, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
