"""multi_head_attention skips a mask that allows nothing (mask.any() is False): every query then attends to every
key, where each row of A must be nan. Only a mask whose every row is masked shows it; no probe has one, so it is
told nothing by name."""
# must-fail: multi_head_attention.fully_masked_row_nan
# diagnosis: none

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
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None and mask.any():
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
