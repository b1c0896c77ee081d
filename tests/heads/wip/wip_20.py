"""Work in progress: everything but the mask.

Finished: softmax, correct; attention scales with `d_k ** 1/2`, i.e. divides by d_k / 2
instead of sqrt(d_k) (the rest is right); self_attention, correct.
Unfinished: causal_mask is `return None`.
"""
# unfinished: causal_mask
# diagnosis: scale_by_2dk
# declared scale_precedence when written; `Q @ K.T / d_k ** 1/2` is ((Q @ K.T) / d_k) / 2: 2·d_k
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / d_k ** 1/2
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return None
