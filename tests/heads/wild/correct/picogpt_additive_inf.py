"""Correct head in the style of GPT-2 in NumPy: one-line attention with an additive mask
built as np.where(mask, 0, -np.inf), keys transposed on their last two axes so a batch works."""

import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(q, k, v, mask=None):  # [..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v] -> [..., n_q, d_v]
    bias = 0.0 if mask is None else np.where(mask, 0.0, -np.inf)
    w = softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + bias)
    return w @ v, w


def self_attention(x, w_q, w_k, w_v, mask=None):  # [..., n_seq, n_embd] -> [..., n_seq, d_v]
    return attention(x @ w_q, x @ w_k, x @ w_v, mask)


def causal_mask(n):  # True where token i may look at token j <= i
    return np.tri(n, dtype=bool)
