"""Work in progress: softmax, attention and the mask written; self_attention not.

Finished: softmax, correct; attention fills masked scores with 0 instead of -inf (scaling
and the rest are right, returns (out, A)); causal_mask uses np.tril(..., k=-1), dropping the
diagonal.
Unfinished: self_attention raises NotImplementedError("TODO: project X then call attention").
"""
# unfinished: self_attention
# diagnosis: mask_zero_fill, causal_mask_strict
import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return e / s


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, 0.0)   # blocked positions
    A = softmax(scores, axis=-1)
    out = A @ V
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    raise NotImplementedError("TODO: project X then call attention")


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)
