"""Every array it returns is nan (or inf for softmax of 3-D input), of the right shape: no
check that looks at a value may pass on it (the fully masked row's wants nan in that row
only); those that look at no value (shapes, inputs left unchanged) and causal_mask's may."""
# must-fail: softmax.rows_sum_to_one, softmax.nonnegative, softmax.shift_invariance, softmax.large_logits, softmax.axis, softmax.matches_reference, attention.worked_example, attention.rows_sum_to_one, attention.nonnegative, attention.convex_combination, attention.scaling, attention.large_logits, attention.matches_reference, mask.rows_sum_to_one, mask.no_future_leakage, mask.first_token_self, mask.arbitrary, mask.fully_masked_row_nan, self_attention.projections, self_attention.mask_passed, self_attention.permutation_equivariance, self_attention.large_logits, self_attention.fully_masked_row_nan, extension.*
# must-pass: attention.shapes, attention.inputs_unchanged, softmax.inputs_unchanged, self_attention.inputs_unchanged, causal_mask.values
# report-status: graded

import numpy as np


def softmax(x, axis=-1):
    return np.full(x.shape, np.inf if x.ndim == 3 else np.nan)


def attention(Q, K, V, mask=None):
    n_q, n_k = Q.shape[-2], K.shape[-2]
    return np.full((*Q.shape[:-1], V.shape[-1]), np.nan), np.full((*Q.shape[:-2], n_q, n_k), np.nan)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
