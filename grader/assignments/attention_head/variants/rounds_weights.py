"""attention rounds the weights to 3 decimals (A = np.round(A, 3)) before using and returning them."""
# must-fail: attention.matches_reference, attention.scaling, attention.worked_example
# diagnosis: rounds_weights

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0
    A = softmax(scores, axis=-1)  # rows sum to 1
    A = np.round(A, 3)
    return A @ V, A  # (n_q, d_v), (n_q, n_k)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))  # token i may see j <= i
