"""Work in progress: softmax, attention and the mask done, self_attention a placeholder.

Finished: softmax takes the max and the sum without keepdims=True (wrong broadcasting);
attention returns the pair in the order (A, out) (scaling, mask and the weights are right);
causal_mask, correct (bool lower triangle built with a list comprehension).
Unfinished: self_attention is the uniform-weights placeholder
(A = np.ones((n, n)) / n, no scores; returns A @ (X @ Wv), A).
"""
# unfinished: self_attention
# diagnosis: softmax_no_keepdims, returns_swapped
import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A, A @ V


def self_attention(X, Wq, Wk, Wv, mask=None):
    # placeholder until attention is checked: uniform weights
    n = X.shape[0]
    A = np.ones((n, n)) / n
    return A @ (X @ Wv), A


def causal_mask(n):
    return np.array([[j <= i for j in range(n)] for i in range(n)], dtype=bool)
