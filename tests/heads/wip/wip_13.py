"""Work in progress: softmax has the stability shift but not the division yet.

Finished: attention, correct (scaled scores, np.where -inf mask, softmax on the last axis,
returns (A @ V, A)); it calls the unfinished softmax.
self_attention, correct (computes Q, K, V and hands the mask to attention).
Unfinished: softmax returns np.exp(x - x.max(axis=axis, keepdims=True)) with the division by
the sum still a TODO; causal_mask is a bare `raise NotImplementedError`.
"""
# unfinished: softmax, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    shifted = np.exp(x - x.max(axis=axis, keepdims=True))
    # TODO: divide by shifted.sum(...) so each row sums to 1
    return shifted


def attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scale = 1.0 / np.sqrt(d_k)
    scores = (Q @ K.T) * scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    q = X @ Wq
    k = X @ Wk
    v = X @ Wv
    out, A = attention(q, k, v, mask=mask)
    return out, A


def causal_mask(n):
    raise NotImplementedError
