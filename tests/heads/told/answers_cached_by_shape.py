"""attention keeps its last answer by the inputs' shapes, and returns it for the next call of those shapes, whatever the values or the mask."""
# must-fail: attention.matches_reference
# diagnosis: none
# told: depends on an earlier call

import numpy as np
_cache = {}

def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)

def attention(Q, K, V, mask=None):
    key = (Q.shape, K.shape, V.shape)
    if key in _cache:
        return _cache[key]
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    _cache.clear()
    _cache[key] = (A @ V, A)
    return A @ V, A

def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)

def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
