"""Correct multi-head attention with np.split / np.stack / np.hstack, the mask added as
0 / -inf, and per-head projections taken as column slices of the weights."""

import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.amax(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.stack(np.split(X, n_heads, axis=1), axis=0)


def merge_heads(H):
    return np.hstack(list(H))


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    d_head = X.shape[1] // n_heads
    bias = 0.0 if mask is None else np.where(mask, 0.0, -np.inf)
    outs, weights = [], []
    per_head = [np.split(W, n_heads, axis=1) for W in (Wq, Wk, Wv)]
    for Wq_h, Wk_h, Wv_h in zip(*per_head):
        Q, K, V = X @ Wq_h, X @ Wk_h, X @ Wv_h
        A = softmax(Q @ K.T / np.sqrt(d_head) + bias)
        outs.append(A @ V)
        weights.append(A)
    return merge_heads(np.stack(outs)) @ Wo, np.stack(weights)
