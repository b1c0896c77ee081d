"""Correct, except that its first softmax call forks children until the kernel refuses,
each of which sleeps and exits: at most 200 (so a broken bound cannot take the machine),
and if all 200 could start, no bound was in force and it answers wrongly on purpose."""

import os
import time

import numpy as np

WANTED = 200
started = None


def _fork_until_refused():
    count = 0
    for _ in range(WANTED):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(10)
            os._exit(0)
        count += 1
    return count


def softmax(x, axis=-1):
    global started
    if started is None:
        started = _fork_until_refused()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    weights = e / e.sum(axis=axis, keepdims=True)
    return weights if started < WANTED else np.ones_like(weights) / weights.shape[axis]


def attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
