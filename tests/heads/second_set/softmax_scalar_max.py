"""softmax subtracts np.max(x), one scalar for the whole array, so rows far below the global max underflow to 0/0."""
# must-fail: softmax.large_logits
# diagnosis: softmax_global_max

import numpy as np


def softmax(x, axis=-1):
    stable = x - np.max(x)
    e = np.exp(stable)
    return e / np.sum(e, axis=axis, keepdims=True)


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
