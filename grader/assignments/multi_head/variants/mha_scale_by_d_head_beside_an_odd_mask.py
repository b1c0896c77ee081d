"""multi_head_attention divides the scores by d_head, and masks with only the first key column of the mask repeated per head:
the unmasked probes alone prove the scale, though no known step explains its masked answers."""
# must-fail: multi_head_attention.scale, multi_head_attention.per_head, multi_head_attention.arbitrary_mask
# diagnosis: mha_scale_by_d_head

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
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / d_head
    if mask is not None:
        scores = np.where(np.stack([mask] * n_heads)[:, :, :1], scores, -np.inf)  # the first key column only
    A = softmax(scores, axis=-1)
    heads = A @ V
    return merge_heads(heads) @ Wo, A
