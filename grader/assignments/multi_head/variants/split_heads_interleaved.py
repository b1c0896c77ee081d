"""split_heads reshapes to (n, d_head, n_heads): head h gets every n_heads-th column."""
# must-fail: split_merge.handout_example, split_merge.split_columns, split_merge.round_trip, multi_head_attention.worked_example, multi_head_attention.matches_reference
# diagnosis: split_heads_interleaved

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
