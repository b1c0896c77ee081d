"""Tries import reference, from reference import attention and import grader to borrow the answer; otherwise it forgets the sqrt(d_k) scale."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference, mask.arbitrary, mask.fully_masked_row_nan, self_attention.projections, self_attention.mask_passed, extension.batched
# must-pass: softmax.*, causal_mask.values, attention.shapes, attention.rows_sum_to_one, attention.nonnegative, attention.convex_combination, attention.inputs_unchanged, mask.no_future_leakage, mask.rows_sum_to_one, mask.first_token_self, self_attention.permutation_equivariance
# report-status: graded
# diagnosis: missing_scale

import numpy as np

_borrowed = None
try:
    import reference

    _borrowed = getattr(reference, "attention", None)
    _borrowed = getattr(_borrowed, "attention", _borrowed)
except Exception:
    pass
if _borrowed is None:
    try:
        from reference import attention as _borrowed
    except Exception:
        pass
if _borrowed is None:
    try:
        import grader
        import grader.reference

        _borrowed = grader.reference.attention
    except Exception:
        pass


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    if callable(_borrowed):
        return _borrowed(Q, K, V, mask)
    scores = Q @ np.swapaxes(K, -1, -2)  # fallback: no / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
