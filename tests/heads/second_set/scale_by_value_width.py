"""attention divides the scores by sqrt(V.shape[1]) (d_v) instead of sqrt(d_k); the lesson's example has d_v == d_k, so it hides there."""
# must-fail: attention.scaling, attention.matches_reference
# diagnosis: scale_wrong_dim

import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    e_x = np.exp(x - x_max)
    return e_x / e_x.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # scale factor from the head dimension
    scale = 1.0 / np.sqrt(V.shape[1])
    logits = np.dot(Q, K.T) * scale
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    probs = softmax(logits, axis=-1)
    return np.dot(probs, V), probs


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask=mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
