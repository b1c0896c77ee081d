"""Correct multi-head attention written with np.einsum for every product, and split/merge
as reshape + transpose."""

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.einsum("nhd->hnd", X.reshape(n, n_heads, d_model // n_heads))


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return np.einsum("hnd->nhd", H).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(np.einsum("nm,mk->nk", X, Wq), n_heads)
    K = split_heads(np.einsum("nm,mk->nk", X, Wk), n_heads)
    V = split_heads(np.einsum("nm,mk->nk", X, Wv), n_heads)
    scores = np.einsum("hqd,hkd->hqk", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask[None, :, :], scores, -np.inf)
    A = softmax(scores, axis=-1)
    heads = np.einsum("hqk,hkd->hqd", A, V)
    return np.einsum("nm,mk->nk", merge_heads(heads), Wo), A
