"""The lesson's head with a wrong causal_mask, whose attention takes 0.9 s whenever Q holds
a value that is not a multiple of 1/16: never for the checks' inputs (quarters, and their
products in self_attention), always for the grader's diagnosis and picture probes (one
decimal), which it answers after its last check."""

import time

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    if np.any(np.abs(Q * 16 - np.round(Q * 16)) > 1e-9):
        time.sleep(0.9)
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
