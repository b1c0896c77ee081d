"""
Blog-tutorial head written with np.dot.

What is wrong:
- softmax exponentiates the raw logits without subtracting the row maximum, so
  logits around 1000 overflow to inf and the row becomes nan.
- attention divides the scores by d_k instead of sqrt(d_k).
- causal_mask returns np.tril(np.ones((n, n))): a float array of 0.0 / 1.0, not a
  boolean mask.
Masking with scores[~mask] = -np.inf (on a copy) is fine, and so is self_attention.
"""
# diagnosis: softmax_no_max_shift, scale_by_dk, causal_mask_not_bool
# style: step-by-step blog tutorial ("Attention from scratch with NumPy"), np.dot everywhere
import numpy as np


def softmax(x, axis=-1):
    """Turn a vector (or rows of a matrix) of scores into probabilities."""
    exps = np.exp(x)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # Step 1: how similar is every query to every key?
    d_k = K.shape[1]
    scores = np.dot(Q, K.T) / d_k
    # Step 2: hide the keys a query is not allowed to see
    if mask is not None:
        scores = scores.copy()
        scores[~mask] = -np.inf
    # Step 3: scores -> probabilities
    weights = softmax(scores, axis=-1)
    # Step 4: weighted sum of the values
    output = np.dot(weights, V)
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.dot(X, Wq)
    K = np.dot(X, Wk)
    V = np.dot(X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n)))
