"""softmax works in place on its argument, and attention turns out's nan into numbers: every answer right otherwise (100 before both were checked)."""
# must-fail: softmax.inputs_unchanged, mask.fully_masked_row_nan
# diagnosis: none
# told: softmax changes x in place | turns nan into 0 (as np.nan_to_num does)

import numpy as np

def softmax(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x

def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return np.nan_to_num(A @ V), A

def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)

def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
