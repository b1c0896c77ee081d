"""Work in progress: attention works, self_attention and the mask are not written.

Finished: softmax, correct (stable, keepdims); attention, correct (np.dot scores scaled by
sqrt(d_k), -inf mask, softmax along the last axis, returns (out, A)).
Unfinished: self_attention is `pass`; causal_mask is a placeholder
`return np.ones((n, n), dtype=bool)`.
"""
# unfinished: self_attention, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    exps = np.exp(x - np.amax(x, axis=axis, keepdims=True))
    return exps / exps.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.dot(Q, K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return np.dot(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    # TODO
    pass


def causal_mask(n):
    # TODO: lower triangle
    return np.ones((n, n), dtype=bool)
