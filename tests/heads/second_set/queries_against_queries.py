"""A typo makes attention compare the queries with themselves, Q @ Q.T; identical to Q @ K.T on the lesson's example, where Q == K. Raises when n_q != n_k."""
# must-fail: attention.shapes, attention.matches_reference, self_attention.projections
# diagnosis: none

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    q, k, v = Q, K, V
    scores = q @ q.T / np.sqrt(k.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    a = softmax(scores, axis=-1)
    return a @ v, a


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
