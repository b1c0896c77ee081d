"""Correct head with a scipy-style softmax: non-finite row maxima are replaced by 0 before the shift."""

import numpy as np


def softmax(x, axis=-1):
    x_max = np.amax(x, axis=axis, keepdims=True)
    x_max = np.where(np.isfinite(x_max), x_max, 0.0)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.dot(Q, K.transpose()) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return np.dot(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tri(n, dtype=bool)
