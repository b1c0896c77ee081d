"""At import, sets the idle I/O priority on the sandbox's init (the zygote, whose uid it
shares), which every later worker forked from it would inherit: a submission's disk reads
starved, and the I/O class a signal to the next one. Nothing else is changed. The head
itself is the lesson's, so it keeps full marks;
tests/submissions/checks_its_sandbox_is_clean.py, graded after it, finds its own I/O
priority as a fresh worker's."""
# must-fail:
# must-pass: *
# report-status: graded

import ctypes
import os

import numpy as np

SYS_IOPRIO_SET = {"x86_64": 251, "aarch64": 30}.get(os.uname().machine)
IOPRIO_WHO_PROCESS, IOPRIO_CLASS_IDLE = 1, 3

if __name__ == "attention" and SYS_IOPRIO_SET is not None:
    ctypes.CDLL(None, use_errno=True).syscall(SYS_IOPRIO_SET, IOPRIO_WHO_PROCESS, 1, IOPRIO_CLASS_IDLE << 13)

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
