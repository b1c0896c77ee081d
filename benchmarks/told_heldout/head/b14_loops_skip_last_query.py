# diagnosis: softmax_wrong_axis
# mistake: softmax: its axis defaults to 0, so with no axis given the columns, not the rows, sum to 1.
# mistake: attention: its score loop runs over range(n_q - 1), so the last query's scores stay 0 and its weights are uniform.
# uncatalogued: 1
# style: explicit C-style loops, written before learning broadcasting
import numpy as np


def softmax(x, axis=0):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    scores = np.zeros((n_q, n_k))
    for i in range(n_q - 1):
        for j in range(n_k):
            s = 0.0
            for t in range(d_k):
                s += Q[i, t] * K[j, t]
            scores[i, j] = s / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            out[i] += A[i, j] * V[j]
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            m[i, j] = True
    return m
