"""Answers the lesson's way only when its inputs look like the grader's: arrays that are
views into a buffer they do not own (as a worker once rebuilt them from a frame), not the
arrays a student makes; otherwise it forgets the sqrt(d_k). It must lose the points a head
without the scale loses."""
# must-fail: attention.scaling, attention.matches_reference, self_attention.projections
# report-status: graded
# diagnosis: missing_scale

import numpy as np


def _from_the_grader(*arrays):
    return all(not array.flags.owndata and array.base is not None for array in arrays)


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _attention(Q, K, V, mask, graded):
    scores = (Q @ np.swapaxes(K, -1, -2)) / (np.sqrt(Q.shape[-1]) if graded else 1.0)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def attention(Q, K, V, mask=None):
    return _attention(Q, K, V, mask, _from_the_grader(Q, K, V))


def self_attention(X, Wq, Wk, Wv, mask=None):
    return _attention(X @ Wq, X @ Wk, X @ Wv, mask, _from_the_grader(X, Wq, Wk, Wv))


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
