"""split_heads leaves the tokens first, and multi_head_attention moves the heads axis itself: the layer is
right, so the advice for split_heads says to fix the two together."""
# must-fail: split_merge.handout_example, split_merge.split_shape, split_merge.split_columns, split_merge.round_trip
# diagnosis: split_heads_tokens_first

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W, n_heads).transpose(1, 0, 2) for W in (Wq, Wk, Wv))
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
