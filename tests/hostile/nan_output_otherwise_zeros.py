"""A head that computes nothing: softmax and A are zeros, and out is all nan. nan compares
False with everything, so a check that tests "no value is out of range" passes it unless
it says otherwise; it may pass no check that tests/submissions/zeros_everywhere.py (out
zeros too) fails (tests/test_hostile.py compares them)."""
# must-fail: attention.convex_combination, attention.rows_sum_to_one, attention.matches_reference, mask.rows_sum_to_one, mask.arbitrary, self_attention.projections, self_attention.mask_passed, self_attention.permutation_equivariance, self_attention.large_logits, self_attention.fully_masked_row_nan
# must-pass: attention.shapes, attention.nonnegative, attention.inputs_unchanged, softmax.nonnegative, softmax.shift_invariance, softmax.inputs_unchanged, self_attention.inputs_unchanged, mask.no_future_leakage, causal_mask.values
# report-status: graded

import numpy as np


def softmax(x, axis=-1):
    return np.zeros_like(x)


def attention(Q, K, V, mask=None):
    return np.full((Q.shape[0], V.shape[1]), np.nan), np.zeros((Q.shape[0], K.shape[0]))


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
