"""multi_head_attention's own softmax sums without keepdims: it raises unless n_heads == n."""
# must-fail: multi_head_attention.worked_example, multi_head_attention.shapes, multi_head_attention.rows_sum_to_one, multi_head_attention.one_head, multi_head_attention.per_head, multi_head_attention.scale, multi_head_attention.output_projection, multi_head_attention.no_future_leakage, multi_head_attention.arbitrary_mask, multi_head_attention.fully_masked_row_nan, multi_head_attention.permutation_equivariance, multi_head_attention.inputs_unchanged, multi_head_attention.matches_reference
# diagnosis: mha_softmax_no_keepdims

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1)
    return merge_heads(A @ V) @ Wo, A
