# diagnosis: mask_inverted
# mistake: attention: it blocks the keys where the mask is True and keeps the False ones.
# mistake: causal_mask: it calls np.ones(n, n) instead of np.ones((n, n)), so NumPy reads the second n as a dtype and raises TypeError.
# uncatalogued: 1
# style: quick homework with a typo nobody ran; masked_fill-like helper
import numpy as np


def softmax(x, axis=-1):
    shift = x - x.max(axis=axis, keepdims=True)
    exps = np.exp(shift)
    return exps / exps.sum(axis=axis, keepdims=True)


def masked_fill(x, where, value):
    out = x.copy()
    out[where] = value
    return out


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    if mask is not None:
        scores = masked_fill(scores, mask, -np.inf)
    A = softmax(scores, -1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones(n, n)).astype(bool)
