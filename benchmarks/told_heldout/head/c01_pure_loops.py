# diagnosis: none
# uncatalogued: 0
# style: explicit Python loops everywhere (no @, no broadcasting), written to "see every number"
import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    res = np.empty_like(flat)
    for r in range(flat.shape[0]):
        row = flat[r]
        m = max(row)
        exps = [math.exp(v - m) if v - m == v - m else float("nan") for v in row]
        total = sum(exps)
        for c in range(len(exps)):
            res[r, c] = exps[c] / total if total == total and total > 0 else float("nan")
    return np.moveaxis(res.reshape(moved.shape), -1, axis)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    scale = math.sqrt(d_k)
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            s = 0.0
            for t in range(d_k):
                s += Q[i, t] * K[j, t]
            scores[i, j] = s / scale
            if mask is not None and not mask[i, j]:
                scores[i, j] = -math.inf
    A = softmax(scores, axis=-1)
    out = np.zeros((n_q, d_v))
    for i in range(n_q):
        for j in range(n_k):
            for c in range(d_v):
                out[i, c] += A[i, j] * V[j, c]
    return out, A


def _matmul(A, B):
    n, m = A.shape
    m2, p = B.shape
    assert m == m2
    C = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            C[i, j] = sum(A[i, t] * B[t, j] for t in range(m))
    return C


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(_matmul(X, Wq), _matmul(X, Wk), _matmul(X, Wv), mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            m[i, j] = j <= i
    return m
