"""The lesson's head, which refuses to import unless its sandbox is held to one CPU: four
processes spinning for one second of wall time may use about one second of CPU between
them, not four (tests/test_bounds.py grades it where the grader makes a cpu cgroup on a
machine of two cores or more)."""

import os
import time

import numpy as np

SPINNERS, WALL_SECONDS = 4, 1.0
_children = []
for _ in range(SPINNERS):
    _pid = os.fork()
    if _pid == 0:
        _end = time.monotonic() + WALL_SECONDS
        while time.monotonic() < _end:
            pass
        os._exit(0)
    _children.append(_pid)
for _pid in _children:
    os.waitpid(_pid, 0)
_used = os.times().children_user + os.times().children_system
assert _used < 1.6, f"{SPINNERS} processes used {_used:.2f} s of CPU in {WALL_SECONDS} s: the sandbox is not held to one CPU"


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
