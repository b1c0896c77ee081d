"""softmax "shifts" with x + max(-x), which is x - min(x): every exponent is >= 0, so wide rows overflow, and a -inf (masked) score turns its row into nan."""
# must-fail: softmax.large_logits, mask.no_future_leakage, mask.first_token_self
# diagnosis: softmax_no_max_shift

import numpy as np


def softmax(x, axis=-1):
    shifted = x + np.max(-x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
