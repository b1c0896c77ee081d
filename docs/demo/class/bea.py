# Attention, written out with loops so I can see every step.
import math

import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    top = x.max(axis=-1, keepdims=True)
    e = np.exp(x - top)
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)


def attention(Q, K, V, mask=None):
    n_q, n_k = Q.shape[0], K.shape[0]
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            # similarity of query i and key j, scaled by the key width
            scores[i, j] = np.dot(Q[i], K[j]) / K.shape[1]
    if mask is not None:
        scores = np.where(mask, scores, -math.inf)
    A = softmax(scores, axis=-1)
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            out[i] += A[i, j] * V[j]
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
