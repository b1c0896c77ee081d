"""Work in progress: softmax and attention are in, the rest is not.

Finished: softmax has the default axis=0 (normalises down the columns when no axis is given;
otherwise max shift and keepdims are right); attention, correct (einsum scores, scaled by
sqrt(d_k), -inf mask, calls softmax with axis=-1 explicitly, returns (out, A)).
Unfinished: self_attention is `return None`; causal_mask is `...`.
"""
# unfinished: self_attention, causal_mask
# diagnosis: softmax_wrong_axis
import numpy as np


def softmax(x, axis=0):
    x_max = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.einsum('qd,kd->qk', Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = np.einsum('qk,kv->qv', A, V)
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return None


def causal_mask(n):
    ...
