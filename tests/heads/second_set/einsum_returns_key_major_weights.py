"""attention works key-major with np.einsum ('kd,qd->kq', softmax over axis 0): out is right but the returned weights are the transpose, shape (n_k, n_q)."""
# must-fail: attention.worked_example, attention.shapes, attention.rows_sum_to_one, attention.matches_reference
# diagnosis: weights_returned_transposed

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    s = np.einsum("kd,qd->kq", K, Q) / np.sqrt(Q.shape[-1])  # one row per key
    if mask is not None:
        s = np.where(mask.T, s, -np.inf)
    w = softmax(s, axis=0)  # normalise over keys for every query
    out = np.einsum("kq,kv->qv", w, V)
    return out, w


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
