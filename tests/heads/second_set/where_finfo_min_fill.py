"""attention fills masked scores with np.finfo(float).min, the most negative finite float, so a fully masked row becomes uniform instead of nan."""
# must-fail: mask.fully_masked_row_nan
# diagnosis: mask_large_negative

import numpy as np

NEG = np.finfo(np.float64).min


def softmax(x, axis=-1):
    peak = x.max(axis=axis, keepdims=True)
    w = np.exp(x - peak)
    return w / w.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    logits = np.matmul(Q, K.T) / np.sqrt(Q.shape[-1])
    if mask is not None:
        logits = np.where(mask, logits, NEG)
    weights = softmax(logits)
    return np.matmul(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
