# My attention head: each step as a loop, so that I can follow it.
import math

import numpy as np


def softmax(logits, axis=-1):
    logits = np.moveaxis(np.asarray(logits, dtype=float), axis, -1)
    biggest = logits.max(axis=-1, keepdims=True)
    ex = np.exp(logits - biggest)
    return np.moveaxis(ex / ex.sum(axis=-1, keepdims=True), -1, axis)


def attention(Q, K, V, mask=None):
    rows, cols = Q.shape[0], K.shape[0]
    s = np.zeros((rows, cols))
    for a in range(rows):
        for b in range(cols):
            s[a, b] = np.dot(Q[a], K[b]) / K.shape[1]
    if mask is not None:
        s = np.where(mask, s, -math.inf)
    weights = softmax(s, axis=-1)
    result = np.zeros((rows, V.shape[1]))
    for a in range(rows):
        for b in range(cols):
            result[a] += weights[a, b] * V[b]
    return result, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
