"""multi_head_attention accepts a mask and never applies it."""
# must-fail: multi_head_attention.no_future_leakage, multi_head_attention.arbitrary_mask, multi_head_attention.matches_reference
# diagnosis: mha_mask_ignored

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
    d_head = Q.shape[-1]
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        pass  # TODO: the mask
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
