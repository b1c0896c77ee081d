"""attention ignores SIGTERM and SIGINT and loops forever; self_attention does not call it."""
# must-fail: attention.*, mask.*, extension.batched
# must-pass: softmax.*, causal_mask.*, self_attention.*
# report-status: graded

import signal

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _head(Q, K, V, mask=None):
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def attention(Q, K, V, mask=None):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass


def self_attention(X, Wq, Wk, Wv, mask=None):
    return _head(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
