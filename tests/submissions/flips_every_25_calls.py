"""Stateful: attention forgets the 1/sqrt(d_k) scale in its calls 1-25, is right in calls
26-50, forgets it again in 51-75, and so on. Its answers depend on how many calls the
worker has answered, so grading it two ways shows whether the grader ever repeats a call
to the worker."""

import numpy as np

CALLS = {"attention": 0}


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    CALLS["attention"] += 1
    scale = 1.0 if (CALLS["attention"] - 1) // 25 % 2 == 0 else np.sqrt(Q.shape[-1])
    scores = (Q @ np.swapaxes(K, -1, -2)) / scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
