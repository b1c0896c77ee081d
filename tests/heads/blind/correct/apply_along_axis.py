"""
Correct head using np.apply_along_axis for softmax, einsum for the products and
boolean indexing for the mask.

The 1-D softmax shifts by the vector's maximum, so exp never overflows; masked
entries are set to -inf on a fresh copy of the scores (the caller's arrays are never
written to).  A fully masked row gives nan, as in the lesson.
"""
# diagnosis: none
# style: np.apply_along_axis softmax, einsum products, boolean-index masking
import numpy as np


def _softmax_1d(v):
    z = v - np.max(v)
    ez = np.exp(z)
    return ez / np.sum(ez)


def softmax(x, axis=-1):
    return np.apply_along_axis(_softmax_1d, axis, np.asarray(x))


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.einsum("qd,kd->qk", Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = scores.copy()
        scores[~np.asarray(mask, dtype=bool)] = -np.inf
    A = softmax(scores, axis=1)
    return np.einsum("qk,kv->qv", A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.einsum("nd,dk->nk", X, Wq)
    K = np.einsum("nd,dk->nk", X, Wk)
    V = np.einsum("nd,dv->nv", X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
