"""attention never divides its scores by sqrt(d_k), and turns the nan of a fully masked row into 0 in both A and out."""
# must-fail: attention.scaling, mask.fully_masked_row_nan
# diagnosis: missing_scale
# told: never divided by sqrt(d_k)

import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    logits = np.matmul(Q, K.T)
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    weights = np.nan_to_num(softmax(logits))
    return np.nan_to_num(weights @ V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)
