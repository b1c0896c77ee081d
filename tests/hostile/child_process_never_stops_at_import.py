"""Starts a child process (this Python, sleeping 1000 s) that never stops while being imported; the head is the lesson's."""
# must-fail:
# must-pass: *
# report-status: graded

import subprocess
import sys

import numpy as np

_child = subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(1000)"])


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
