"""The lesson's head, except that once any row of A is nan (a fully masked row, where the
lesson says nan is right) it makes every row of out nan: the nan must stay in its row,
so mask.fully_masked_row_nan fails."""
# must-fail: mask.fully_masked_row_nan, self_attention.fully_masked_row_nan
# must-pass: softmax.*, attention.*, mask.no_future_leakage, mask.rows_sum_to_one, mask.first_token_self, mask.arbitrary, self_attention.projections, self_attention.mask_passed, self_attention.permutation_equivariance, self_attention.large_logits, self_attention.inputs_unchanged, causal_mask.values
# report-status: graded

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = A @ V
    if np.isnan(A).any():
        out = np.full_like(out, np.nan)
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
