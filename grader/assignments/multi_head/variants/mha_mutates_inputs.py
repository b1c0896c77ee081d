"""multi_head_attention folds the scale into Wq in place: the caller's Wq shrinks at every call."""
# must-fail: multi_head_attention.inputs_unchanged
# diagnosis: mha_mutates_inputs

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    d_head = X.shape[1] // n_heads
    Wq /= np.sqrt(d_head)  # scale once, up front
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    scores = Q @ K.transpose(0, 2, 1)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
