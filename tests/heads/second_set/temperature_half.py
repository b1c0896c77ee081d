"""attention scales correctly but then applies an extra temperature of 0.5 (scores / 0.5) "to sharpen" the weights."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: none

import numpy as np

TEMPERATURE = 0.5


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    logits = Q @ K.T / np.sqrt(Q.shape[-1]) / TEMPERATURE
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    A = softmax(logits)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
