"""
Homework head with a few slips.

What is wrong:
- softmax's sum is taken without keepdims=True, so for the last axis the (n,) sums
  broadcast against the columns: it raises for non-square input and divides by the
  wrong sums for square input (axis=0 happens to work).
- attention "masks" with scores * mask, which sets blocked scores to 0 instead of
  -inf; exp(0) = 1, so blocked keys still get weight.
- attention returns (A, out) instead of (out, A).
self_attention and causal_mask are fine.
"""
# diagnosis: softmax_no_keepdims, mask_zero_fill, returns_swapped
# style: homework submission (terse, comments to the TA)
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis)


def attention(Q, K, V, mask=None):
    dk = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(dk)
    if mask is not None:
        scores = scores * mask  # masked positions -> 0
    A = softmax(scores, axis=-1)
    return A, A @ V


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
