"""attention works out which positions to hide once per mask shape, and applies the first mask it met of a shape to every later mask of that shape."""
# must-fail: attention.matches_reference
# diagnosis: none
# told: attention (or softmax, if attention calls it) gives answers that depend on earlier calls
# not-told: applies a causal mask

import numpy as np

_hidden_by_shape = {}


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        hidden = _hidden_by_shape.setdefault(mask.shape, ~mask.astype(bool))
        scores = np.where(hidden, -np.inf, scores)
    weights = softmax(scores)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
