"""split_heads returns a list of heads, not one array (the layer stacks it, so only split_heads is wrong)."""
# must-fail: split_merge.split_returns_array
# diagnosis: none

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
    return [X[:, h * (d_model // n_heads):(h + 1) * (d_model // n_heads)] for h in range(n_heads)]


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (np.stack(split_heads(X @ W, n_heads)) for W in (Wq, Wk, Wv))
    heads, A = attention(Q, K, V, mask)
    return merge_heads(heads) @ Wo, A
