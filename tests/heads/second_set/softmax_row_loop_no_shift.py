"""softmax loops over the rows along the requested axis and exponentiates each row directly, with no max subtraction, so large logits overflow to nan."""
# must-fail: softmax.large_logits, attention.large_logits
# diagnosis: softmax_no_max_shift

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    result = np.empty_like(rows)
    for i in range(rows.shape[0]):
        row = rows[i]
        exps = np.exp(row)
        result[i] = exps / exps.sum()
    return np.moveaxis(result.reshape(moved.shape), -1, axis)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
