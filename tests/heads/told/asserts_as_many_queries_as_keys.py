"""attention asserts that there are as many queries as keys: a shape assert, no float comparison."""
# must-fail: attention.shapes
# diagnosis: none
# told: raised AssertionError
# not-told: np.allclose

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def attention(Q, K, V, mask=None):
    assert Q.shape[0] == K.shape[0], "one query per key"
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
