"""attention fills masked scores with 0 rather than -inf, and returns twice A @ V as its output."""
# must-fail: mask.no_future_leakage, attention.worked_example
# diagnosis: none
# told: output is not A @ V
# not-told: never applies

import numpy as np


def softmax(x, axis=-1):
    m = np.amax(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores * mask
    A = softmax(scores)
    return 2 * (A @ V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
