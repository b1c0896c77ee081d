"""
Head whose attention computes its own softmax and masks by multiplying exp(scores).

What is wrong:
- softmax's default is axis=None, so softmax(x) with no axis normalises over the
  whole array.
- attention writes Q @ K.T / d_k ** 1/2, which Python reads as
  ((Q @ K.T) / d_k) / 2: the scores are divided by 2 * d_k.
- attention's inline softmax is np.exp(logits) with no max subtraction, so large
  scores overflow to inf and give nan.
Masking by weights * mask after exp and before normalising is not a separate mistake:
blocked keys get exactly 0 and a fully masked row gives 0/0 = nan as in the lesson;
it only misbehaves when exp overflows or underflows, which is the missing max shift.
self_attention and causal_mask are fine.
"""
# diagnosis: softmax_default_axis_none, scale_by_2dk, attention_no_max_shift
# style: CS231n-style assignment (inline exp, normalise by hand, multiply by mask)
import numpy as np


def softmax(x, axis=None):
    x = np.asarray(x)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    logits = Q @ K.T / d_k ** 1/2
    weights = np.exp(logits)
    if mask is not None:
        weights = weights * mask  # exp(score) * 0 -> 0 for blocked keys
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
