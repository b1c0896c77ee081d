"""split_heads and merge_heads are right, but multi_head_attention reshapes inline instead of
calling them."""
# must-fail: multi_head_attention.per_head, multi_head_attention.worked_example, multi_head_attention.matches_reference
# diagnosis: mha_reshape_without_transpose

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
    n, d_model = X.shape
    d_head = d_model // n_heads
    Q = (X @ Wq).reshape(n_heads, n, d_head)
    K = (X @ Wk).reshape(n_heads, n, d_head)
    V = (X @ Wv).reshape(n_heads, n, d_head)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return (A @ V).reshape(n, d_model) @ Wo, A
