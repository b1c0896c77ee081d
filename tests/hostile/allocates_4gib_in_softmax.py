"""softmax first allocates 4 GiB (np.ones(2**29)); the rest is the lesson's, so everything that uses softmax fails."""
# must-fail: softmax.*, attention.*, mask.*, self_attention.*, extension.batched
# must-pass: causal_mask.values
# report-status: graded

import numpy as np


def softmax(x, axis=-1):
    hog = np.ones(2**29)
    x = x - x.max(axis=axis, keepdims=True) + hog[0] - 1.0
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
