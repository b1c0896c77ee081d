"""Work in progress: softmax is still a pass-through, the rest is written.

Finished: attention forgets the 1/sqrt(d_k) scale (softmax of the raw Q @ K.T); otherwise it
masks with -inf and returns (A @ V, A); it calls the unfinished softmax.
self_attention, correct; causal_mask, correct (np.tril with k=0, dtype=bool).
Unfinished: softmax is `return x` (TODO).
"""
# unfinished: softmax
# diagnosis: missing_scale
import numpy as np


def softmax(x, axis=-1):
    # TODO
    return x


def attention(Q, K, V, mask=None):
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=0)
