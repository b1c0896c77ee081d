"""self_attention keeps the projections of the first X it meets of each shape, so a later X of that shape gets the earlier X's queries, keys and values; attention is right."""
# must-fail: self_attention.matches_reference
# diagnosis: none
# told: gives answers that depend on earlier calls
# not-told: A @ V

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


class _Projections:
    """Projections are 'expensive': keep them by the shapes of what they come from."""

    def __init__(self):
        self.kept = {}

    def __call__(self, X, Wq, Wk, Wv):
        key = (X.shape, Wq.shape, Wk.shape, Wv.shape)
        if key not in self.kept:
            self.kept[key] = (X @ Wq, X @ Wk, X @ Wv)
        return self.kept[key]


_project = _Projections()


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(*_project(X, Wq, Wk, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
