"""self_attention sets a causal mask when none is given, then calls attention: it does not compute attention itself."""
# must-fail: self_attention.projections
# diagnosis: self_attention_default_causal
# told: applies a causal mask when no mask is given
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
    if mask is None:
        mask = causal_mask(X.shape[0])
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
