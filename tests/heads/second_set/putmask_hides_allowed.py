"""attention uses np.putmask(scores, mask, -np.inf): it hides the positions where the mask is True, the ones that may be attended to."""
# must-fail: mask.no_future_leakage, mask.first_token_self, mask.arbitrary, mask.fully_masked_row_nan, attention.matches_reference
# diagnosis: mask_inverted

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.matmul(Q, K.T) / np.sqrt(K.shape[-1])
    if mask is not None:
        np.putmask(scores, mask, -np.inf)
    A = softmax(scores, axis=-1)
    return np.matmul(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
