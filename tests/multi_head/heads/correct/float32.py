"""Correct multi-head attention that casts every input to float32 and computes and returns float32."""

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    X = np.asarray(X, dtype=np.float32)
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    H = np.asarray(H, dtype=np.float32)
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    X, Wq, Wk, Wv, Wo = (np.asarray(a, dtype=np.float32) for a in (X, Wq, Wk, Wv, Wo))
    Q, K, V = split_heads(X @ Wq, n_heads), split_heads(X @ Wk, n_heads), split_heads(X @ Wv, n_heads)
    scores = Q @ K.transpose(0, 2, 1) / np.float32(np.sqrt(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A.astype(np.float32)
