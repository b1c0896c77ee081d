# diagnosis: none
# uncatalogued: 0
# style: functional student style: np.apply_along_axis softmax, cumsum-built causal mask, masked_where
import numpy as np


def _softmax_1d(v):
    v = v - v.max()
    e = np.exp(v)
    return e / e.sum()


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    return np.apply_along_axis(_softmax_1d, axis, x)


def attention(Q, K, V, mask=None):
    scores = np.dot(Q, np.transpose(K)) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.ma.masked_where(~mask, scores).filled(-np.inf)
    A = softmax(scores, axis=-1)
    return np.dot(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = (np.dot(X, W) for W in (Wq, Wk, Wv))
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.cumsum(np.eye(n, dtype=int), axis=0).astype(bool)
