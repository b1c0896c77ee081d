"""attention divides its scores by d_k rather than sqrt(d_k), and adds a bias of 1 to every output (out = A @ V + 1)."""
# must-fail: attention.scaling, attention.worked_example
# diagnosis: scale_by_dk
# told: by d_k instead of sqrt(d_k) | output is not A @ V

import numpy as np


def softmax(x, axis=-1):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d = K.shape[1]
    s = Q.dot(K.T) / d
    if mask is not None:
        s[~mask] = -np.inf
    A = softmax(s)
    out = A.dot(V) + 1.0
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X.dot(Wq), X.dot(Wk), X.dot(Wv), mask)


def causal_mask(n):
    return np.arange(n)[:, None] >= np.arange(n)[None, :]
