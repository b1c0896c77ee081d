"""Work in progress: attention with its own exp-and-divide, softmax still empty.

Finished: attention computes its own softmax inline as np.exp(scores) / row sums, without
subtracting the row max (scaling by sqrt(d_k) and the -inf mask are right; returns (out, A));
causal_mask, correct (np.tri(n, dtype=bool)).
Unfinished: softmax is `pass`; self_attention is `pass`.
"""
# unfinished: softmax, self_attention
# diagnosis: attention_no_max_shift
import numpy as np


def softmax(x, axis=-1):
    pass


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores)
    A = w / w.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    pass


def causal_mask(n):
    return np.tri(n, dtype=bool)
