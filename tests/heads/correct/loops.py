"""Correct head written with explicit Python loops and no matrix multiplication."""

import math

import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    rows = x.reshape(-1, x.shape[-1])
    result = np.empty_like(rows)
    for r in range(rows.shape[0]):
        biggest = max(rows[r])
        total = 0.0
        for j in range(rows.shape[1]):
            result[r, j] = math.exp(rows[r, j] - biggest)
            total += result[r, j]
        for j in range(rows.shape[1]):
            result[r, j] = result[r, j] / total
    return np.moveaxis(result.reshape(x.shape), -1, axis)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                scores[i, j] = -math.inf
                continue
            dot = 0.0
            for t in range(d_k):
                dot += Q[i, t] * K[j, t]
            scores[i, j] = dot / math.sqrt(d_k)
    A = softmax(scores, axis=-1)
    out = np.zeros((n_q, d_v))
    for i in range(n_q):
        for j in range(n_k):
            for c in range(d_v):
                out[i, c] += A[i, j] * V[j, c]
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    def project(W):
        P = np.zeros((X.shape[0], W.shape[1]))
        for i in range(X.shape[0]):
            for c in range(W.shape[1]):
                for t in range(X.shape[1]):
                    P[i, c] += X[i, t] * W[t, c]
        return P

    return attention(project(Wq), project(Wk), project(Wv), mask)


def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
