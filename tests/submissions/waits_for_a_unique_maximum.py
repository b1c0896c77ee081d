"""softmax waits, forever, for a row's largest value to be unique: it hangs on any row with a tied maximum (a row of -inf, as a fully masked row gives, included); elsewhere it is the lesson's."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    top = x.max(axis=axis, keepdims=True)
    while np.any(np.sum(x == top, axis=axis) > 1):
        pass
    e = np.exp(x - top)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
