"""softmax unpacks n, m = x.shape and loops over the rows: right for a 2-D array along either axis, and it raises on any other shape."""
# must-fail: softmax.axis, softmax.matches_reference
# diagnosis: softmax_only_2d

import numpy as np


def softmax(x, axis=-1):
    n, m = x.shape  # rows and columns: only a 2-D array unpacks
    rows = x.T if axis in (0, -2) else x
    out = np.empty(rows.shape)
    for i in range(rows.shape[0]):
        e = np.exp(rows[i] - rows[i].max())
        out[i] = e / e.sum()
    return out.T if axis in (0, -2) else out


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0
    A = softmax(scores, axis=-1)  # rows sum to 1
    return A @ V, A  # (n_q, d_v), (n_q, n_k)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))  # token i may see j <= i
