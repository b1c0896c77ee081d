"""self_attention computes attention itself for a batch of sequences: np.transpose(K, (0, 2, 1)) raises on
the lesson's 2-D X (and is right for a batch)."""
# must-fail: self_attention.projections
# diagnosis: self_attention_needs_batch_axis

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
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
    Q, K, V = X @ Wq, X @ Wk, X @ Wv  # (batch, n, d)
    scores = Q @ np.transpose(K, (0, 2, 1)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
