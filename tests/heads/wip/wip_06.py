"""Work in progress: only causal_mask has been attempted.

Finished: causal_mask returns np.tril(np.ones((n, n))) -- the right triangle, but as floats
(0.0 / 1.0) instead of a bool array.
Unfinished: softmax is `return None`; attention is a placeholder `return Q, Q`;
self_attention is `pass`.
"""
# unfinished: softmax, attention, self_attention
# diagnosis: causal_mask_not_bool
import numpy as np


def softmax(x, axis=-1):
    return None


def attention(Q, K, V, mask=None):
    # placeholder so the shapes line up later
    return Q, Q


def self_attention(X, Wq, Wk, Wv, mask=None):
    pass


def causal_mask(n):
    return np.tril(np.ones((n, n)))
