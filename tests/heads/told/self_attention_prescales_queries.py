"""self_attention divides its queries by sqrt(d_model) (as GPT-2's code does) before calling attention, which divides by sqrt(d_k) again."""
# must-fail: self_attention.projections
# diagnosis: none
# told: an extra factor 1/sqrt(d_model) on Q or K
# not-told: computes attention itself

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq / np.sqrt(X.shape[-1])  # GPT-2 style pre-scaling
    return attention(Q, X @ Wk, X @ Wv, mask)
