"""attention builds a lower-triangular mask itself whenever mask is None, so unmasked attention is silently causal."""
# must-fail: attention.worked_example, attention.matches_reference, self_attention.projections
# diagnosis: default_causal

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is None:
        # decoder attention: no peeking ahead
        mask = np.tril(np.ones(scores.shape, dtype=bool))
    scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
