"""attention "transposes" the keys with K.reshape(d_k, n_k): right shape, wrong values; for square K that is plain Q @ K."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: keys_reshaped

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n_k, d_k = K.shape
    K_t = K.reshape(d_k, n_k)
    scores = Q @ K_t / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
