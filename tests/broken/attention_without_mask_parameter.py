"""attention is declared as attention(Q, K, V) with no mask parameter, and self_attention drops the mask to match."""
# must-fail: mask.*, self_attention.mask_passed, self_attention.fully_masked_row_nan, attention.matches_reference, attention.inputs_unchanged, attention.large_logits
# must-pass: softmax.*, causal_mask.*, attention.worked_example, attention.shapes, attention.rows_sum_to_one, attention.nonnegative, attention.convex_combination, attention.scaling, self_attention.projections, self_attention.large_logits, self_attention.inputs_unchanged, self_attention.permutation_equivariance, extension.batched
# report-status: graded
# diagnosis: self_attention_drops_mask

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
