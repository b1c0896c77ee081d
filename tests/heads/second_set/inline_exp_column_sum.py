"""attention skips softmax() and writes np.exp(s) / np.exp(s).sum(0): no max shift AND the sum runs down the columns (axis 0)."""
# must-fail: attention.rows_sum_to_one, attention.large_logits, attention.matches_reference
# diagnosis: attention_softmax_axis, attention_no_max_shift

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    A = np.exp(s) / np.exp(s).sum(0)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
