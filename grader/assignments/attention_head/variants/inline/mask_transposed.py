"""self_attention computes attention itself, in own_attention, where attention applies mask.T instead of the mask: under a causal mask tokens see the future; the file's attention is the lesson's."""
# must-fail: self_attention.mask_passed, self_attention.fully_masked_row_nan
# diagnosis: none

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def own_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask.T, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def _unused_self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return own_attention(X @ Wq, X @ Wk, X @ Wv, mask)
