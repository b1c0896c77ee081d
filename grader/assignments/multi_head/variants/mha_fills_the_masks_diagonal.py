"""multi_head_attention sets the mask's diagonal to True in place: the caller's mask changes, but every
call gives the same answer (the diagonal stays True), so "two calls can give two answers" would be untrue."""
# must-fail: multi_head_attention.inputs_unchanged
# diagnosis: mha_mutates_inputs

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    if mask is not None:
        np.fill_diagonal(mask, True)  # "every token may always see itself"
    heads, A = attention(Q, K, V, mask)
    return merge_heads(heads) @ Wo, A
