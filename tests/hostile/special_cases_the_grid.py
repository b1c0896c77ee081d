"""Answers the lesson's way only when every input value sits on a grid of 1/64 (the
grader's examples used to be multiples of a quarter, and so were the projections of
them), and forgets the sqrt(d_k) otherwise, as on any student's own test data: it must
lose the points a head without the scale loses."""
# must-fail: attention.scaling, attention.matches_reference, self_attention.projections
# report-status: graded

import numpy as np


def _on_grid(*arrays):
    return all(np.array_equal(a * 64, np.round(a * 64)) for a in arrays if a is not None)


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scale = np.sqrt(d_k) if _on_grid(Q, K, V) else 1.0
    scores = (Q @ np.swapaxes(K, -1, -2)) / scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
