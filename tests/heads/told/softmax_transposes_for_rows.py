"""softmax divides exp(x).T by the row sums and transposes back: right on 1-D and 2-D arrays, wrong from 3-D, and it ignores its axis."""
# must-fail: softmax.axis
# diagnosis: softmax_no_max_shift, softmax_ignores_axis, softmax_only_2d
# told: right on 2-D arrays but not on arrays of more than two dimensions
# not-told: works only on 2-D

import numpy as np


def softmax(x, axis=-1):
    return (np.exp(x).T / np.sum(np.exp(x), axis=-1)).T


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
