"""softmax centres each row on its mean instead of shifting by its max before exp."""
# must-fail: softmax.large_logits, mask.first_token_self
# diagnosis: softmax_subtracts_mean

import numpy as np


def softmax(x, axis=-1):
    x = x - x.mean(axis=axis, keepdims=True)  # "normalise" the logits first
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
