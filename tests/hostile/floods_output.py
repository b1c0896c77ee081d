"""Prints about 30 MB to stdout and stderr while being imported and about 5 MB on every call; the head is the lesson's."""
# must-fail:
# must-pass: *
# report-status: graded

import sys

import numpy as np

_CHUNK = "flood " * 170_000 + "\n"  # about 1 MB


def _flood(megabytes):
    for i in range(megabytes):
        (sys.stdout if i % 2 else sys.stderr).write(_CHUNK)
    sys.stdout.flush()
    sys.stderr.flush()


_flood(30)


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

_lesson = dict(softmax=softmax, attention=attention, self_attention=self_attention, causal_mask=causal_mask)


def softmax(x, axis=-1):
    _flood(5)
    return _lesson["softmax"](x, axis)


def attention(Q, K, V, mask=None):
    _flood(5)
    return _lesson["attention"](Q, K, V, mask)


def self_attention(X, Wq, Wk, Wv, mask=None):
    _flood(5)
    return _lesson["self_attention"](X, Wq, Wk, Wv, mask)


def causal_mask(n):
    _flood(5)
    return _lesson["causal_mask"](n)
