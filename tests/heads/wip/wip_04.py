"""Work in progress: attention is written on top of a softmax that is not finished.

Finished: attention, correct (Q @ K.T / sqrt(d_k), np.where mask to -inf, softmax over the
last axis, returns (A @ V, A)) -- it calls the unfinished softmax, which is not its fault;
self_attention, correct (projects X with Wq, Wk, Wv and passes the mask to attention).
Unfinished: softmax only returns np.exp(x) (the division is still a TODO);
causal_mask is a placeholder that returns np.ones((n, n), dtype=bool).
"""
# unfinished: softmax, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    # TODO: subtract the max and divide by the sum
    return np.exp(x)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = A @ V
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    # placeholder until I get to masking
    return np.ones((n, n), dtype=bool)
