"""softmax hard-codes axis=1 and skips the max shift: the axis argument is ignored AND large logits overflow."""
# must-fail: softmax.large_logits, softmax.axis, softmax.matches_reference, attention.large_logits
# diagnosis: softmax_no_max_shift, softmax_fixed_axis

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
