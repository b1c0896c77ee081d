"""Work in progress: attention only returns the scores computed so far.

Finished: softmax, correct (max shift, exp, row-sum division, keepdims);
self_attention, correct (one-line call to attention with the three projections and the mask).
Unfinished: attention stops after the scores and returns them: `return Q @ K.T / np.sqrt(d)`;
causal_mask is a placeholder `return np.ones((n, n))`.
"""
# unfinished: attention, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d = Q.shape[1]
    # TODO mask + softmax + weighted sum
    return Q @ K.T / np.sqrt(d)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.ones((n, n))
