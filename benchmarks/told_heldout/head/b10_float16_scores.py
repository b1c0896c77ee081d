# diagnosis: softmax_subtracts_mean
# mistake: softmax: it subtracts each row's mean instead of its max before exp.
# mistake: attention: it casts the scores to float16 "to save memory", which rounds them to about three significant digits (and overflows to inf above 65504), so the weights are slightly off.
# uncatalogued: 1
# style: mixed-precision inference port (fp16 everywhere)
import numpy as np

DTYPE = np.float16  # like running the model in half precision


def softmax(x, axis=-1):
    x = x - np.mean(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T).astype(DTYPE) / DTYPE(np.sqrt(d_k))
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    s = scores.astype(np.float64)
    s = s - s.max(axis=-1, keepdims=True)
    A = np.exp(s)
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask=mask)


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)
