"""attention masks the scores for out, but returns the weights softmax gave the unmasked scores: A shows weight on hidden keys."""
# must-fail: mask.no_future_leakage, mask.arbitrary
# diagnosis: weights_returned_unmasked

import numpy as np

def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)

def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = softmax(scores)  # kept for the heat-map
    if mask is not None:
        masked = softmax(np.where(mask, scores, -np.inf))
    else:
        masked = weights
    return masked @ V, weights

def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)

def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
