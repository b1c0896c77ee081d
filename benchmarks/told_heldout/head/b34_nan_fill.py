# diagnosis: self_attention_default_causal
# mistake: attention: it fills masked scores with np.nan instead of -np.inf, so any row with at least one masked key becomes all nan.
# mistake: self_attention: it computes the head itself and applies a causal mask when no mask is given.
# uncatalogued: 1
# style: decoder-only homework with "mask = None means causal" default and nan/inf mix-up
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, np.nan)   # "not a number" = not allowed
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    n = X.shape[0]
    if mask is None:
        mask = causal_mask(n)   # decoder: default to causal
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
