"""a loop over heads that applies the mask after the loop, to the last head only."""
# must-fail: multi_head_attention.no_future_leakage, multi_head_attention.arbitrary_mask, multi_head_attention.fully_masked_row_nan, multi_head_attention.matches_reference
# diagnosis: mha_mask_one_head

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
    weights = []
    for h in range(n_heads):
        scores = Q[h] @ K[h].T / np.sqrt(Q.shape[-1])
        weights.append(scores)
    if mask is not None:
        weights[-1] = np.where(mask, weights[-1], -np.inf)
    A = softmax(np.stack(weights), axis=-1)
    return merge_heads(A @ V) @ Wo, A
