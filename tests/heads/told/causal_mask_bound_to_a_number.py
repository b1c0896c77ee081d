"""A finished head whose causal_mask is bound to a number, not a function: told what the
name holds, not that the file does not define it."""
# must-fail: causal_mask.values
# diagnosis: none
# told: binds causal_mask to an int, not a function
# not-told: does not define


import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0
    A = softmax(scores, axis=-1)  # rows sum to 1
    return A @ V, A  # (n_q, d_v), (n_q, n_k)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


causal_mask = 4
