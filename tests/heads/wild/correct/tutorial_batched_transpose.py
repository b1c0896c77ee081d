"""Correct head in the tutorials' batched style: np.matmul with K.transpose(0, 2, 1) for a
batch (K.T otherwise), and a mask turned into -inf with np.where before the softmax."""

import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    exps = np.exp(x - x_max)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    # Scores: Q K^T / sqrt(d_k)
    K_T = K.transpose(0, 2, 1) if K.ndim == 3 else K.T
    scores = np.matmul(Q, K_T) / np.sqrt(d_k)
    # Apply mask: False -> -inf, so its weight is exactly 0
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    attention_weights = softmax(scores, axis=-1)
    output = np.matmul(attention_weights, V)
    return output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
