"""Correct multi-head attention that uses np.moveaxis for the transposes, masks with a copy
and boolean indexing, and computes the output projection per head (block rows of Wo) before
summing, which is the same product."""

import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.moveaxis(X.reshape(n, n_heads, d_model // n_heads), 1, 0)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return np.moveaxis(H, 0, 1).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = split_heads(X @ Wq, n_heads), split_heads(X @ Wk, n_heads), split_heads(X @ Wv, n_heads)
    d_head = Q.shape[2]
    scores = np.matmul(Q, np.moveaxis(K, 2, 1)) / d_head ** 0.5
    if mask is not None:
        scores = scores.copy()
        scores[:, ~np.asarray(mask, dtype=bool)] = -np.inf
    A = softmax(scores)
    heads = A @ V
    Wo_blocks = Wo.reshape(n_heads, d_head, Wo.shape[1])  # row block h multiplies head h
    out = sum(heads[h] @ Wo_blocks[h] for h in range(n_heads))
    return out, A
