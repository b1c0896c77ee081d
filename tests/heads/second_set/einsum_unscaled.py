"""attention builds the scores with np.einsum and never divides them by sqrt(d_k)."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: missing_scale

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True)); return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    sc = np.einsum("id,jd->ij", Q, K)
    if mask is not None:
        sc = np.where(mask, sc, -np.inf)
    w = softmax(sc, -1)
    return np.einsum("ij,jv->iv", w, V), w


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.einsum("nd,dk->nk", X, Wq), np.einsum("nd,dk->nk", X, Wk), np.einsum("nd,dv->nv", X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
