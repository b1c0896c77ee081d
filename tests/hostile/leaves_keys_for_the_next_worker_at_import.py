"""At import, stores a key in every keyring it can reach: its session keyring (shared with
the sandbox's init unless it has one of its own), and its user's two keyrings (shared by
every process of the uid). A later worker that finds one could read what this one left
(its source, its answers). The head itself is the lesson's, so it keeps full marks;
tests/submissions/checks_its_sandbox_is_clean.py, graded after it, finds no key."""
# must-fail:
# must-pass: *
# report-status: graded

import ctypes
import os

import numpy as np

SYS_ADD_KEY = {"x86_64": 248, "aarch64": 217}.get(os.uname().machine)
KEYRINGS = (-3, -4, -5)  # session, user, user session
PAYLOAD = b"what the next worker should not find"

if SYS_ADD_KEY is not None and __name__ == "attention":
    _libc = ctypes.CDLL(None, use_errno=True)
    for keyring in KEYRINGS:
        _libc.syscall(SYS_ADD_KEY, b"user", b"left-for-the-next-worker", PAYLOAD, len(PAYLOAD), keyring)


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
