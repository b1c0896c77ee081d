"""Work in progress: attention was being split into a helper that is only half typed.

Finished: softmax, correct; self_attention, correct (calls attention with the projections and
the mask); causal_mask, correct (np.tril of a bool ones matrix).
Unfinished: attention calls a half-typed helper `_scaled_scores` (its body is a TODO comment
and `return None`) and then raises NotImplementedError; the helper is part of that unfinished
work.
"""
# unfinished: attention
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # TODO: Q @ K.T / sqrt(d_k)
    return None


def attention(Q, K, V, mask=None):
    scores = _scaled_scores(Q, K)
    # TODO: mask, softmax, A @ V
    raise NotImplementedError


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask=mask)


def causal_mask(n):
    mask = np.ones((n, n), dtype=bool)
    return np.tril(mask)
