"""Correct head with explicit loops over rows, each row shifted by its own max; softmax moves
the requested axis to the end so it honours any axis."""

import math

import numpy as np


def _softmax_1d(row):
    m = np.max(row)
    exps = np.exp(row - m)
    return exps / np.sum(exps)


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        out[i] = _softmax_1d(flat[i])
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    scores = np.empty((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            scores[i, j] = np.dot(Q[i], K[j]) / math.sqrt(d_k)
            if mask is not None and not mask[i, j]:
                scores[i, j] = -np.inf
    weights = softmax(scores, axis=-1)
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            out[i] += weights[i, j] * V[j]
    return out, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        mask[i, : i + 1] = True
    return mask
