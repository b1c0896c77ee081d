"""attention applies the mask as scores * mask.astype(int), so masked scores become 0 (still weighted by exp(0)) instead of -inf."""
# must-fail: mask.no_future_leakage, mask.first_token_self, mask.arbitrary, mask.fully_masked_row_nan, attention.matches_reference
# diagnosis: mask_zero_fill

import numpy as np


def softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    expd = np.exp(shifted)
    return expd / expd.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = scores * mask.astype(int)  # keep only allowed positions
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
