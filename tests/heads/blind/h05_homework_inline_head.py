"""
Homework solution where self_attention is written out in full.

What is wrong:
- attention computes its scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2,
  so it divides by d_k / 2 instead of sqrt(d_k).  (By coincidence d_k / 2 equals
  sqrt(d_k) when d_k == 4, so that one size gives the right answer.)
- self_attention does not call attention; its own code divides the scores by
  sqrt(d_model) (X.shape[1]) instead of sqrt(d_k) ...
- ... and exponentiates the scores without subtracting the row maximum, so large
  scores overflow to inf and give nan.
softmax and causal_mask are fine; the masking in both attention codes is fine.
"""
# diagnosis: scale_precedence, self_attention_scale_wrong_dim, self_attention_no_max_shift
# style: homework solution (problem numbers in comments, self_attention written out in full)
import numpy as np


def softmax(x, axis=-1):
    # Problem 1
    shifted = x - np.max(x, axis=axis, keepdims=True)
    num = np.exp(shifted)
    return num / np.sum(num, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # Problem 2
    d_k = Q.shape[-1]
    scale = d_k ** 1/2
    scores = Q @ K.T / scale
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    # Problem 3(c): no calling attention() -- write every step yourself
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    d = X.shape[1]
    scores = Q @ K.T / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ V, weights


def causal_mask(n):
    # Problem 4
    return np.tril(np.ones((n, n), dtype=bool))
