"""softmax divides the exponentials by their max instead of their sum, so the largest weight
in each row is 1 and rows do not sum to 1. attention fills masked scores with 0 instead of
-inf (np.where(mask, scores, 0)), so masked keys still get weight. causal_mask is
np.tril(..., k=1): the diagonal and one step above it, so each token also sees the next one."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, attention.rows_sum_to_one, mask.no_future_leakage, causal_mask.values
# diagnosis: mask_zero_fill, causal_mask_allows_next
# style: https://aiml-notes.pages.dev/tutorials/08---Attention-Mechanism-from-Scratch

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.max(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)  # (seq_len_q, seq_len_k)
    if mask is not None:
        scores = np.where(mask, scores, 0)  # masked positions contribute nothing
    weights = softmax(scores)
    output = weights @ V
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n)), k=1).astype(bool)
