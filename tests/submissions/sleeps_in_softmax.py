"""softmax never returns; the other functions are the lesson's."""
import time

import numpy as np


def softmax(x, axis=-1):
    while True:
        time.sleep(1)


def attention(Q, K, V, mask=None):
    scores = (Q @ K.T) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
