"""Searches sys.path, .pth files, the folders above itself and (for a few seconds) all of / for reference/attention.py and runs it; otherwise it forgets the sqrt(d_k) scale."""
# must-fail: attention.worked_example, attention.scaling, attention.matches_reference, mask.arbitrary, mask.fully_masked_row_nan, self_attention.projections, self_attention.mask_passed, extension.batched
# must-pass: softmax.*, causal_mask.values, attention.shapes, attention.rows_sum_to_one, attention.nonnegative, attention.convex_combination, attention.inputs_unchanged, mask.no_future_leakage, mask.rows_sum_to_one, mask.first_token_self, self_attention.permutation_equivariance
# report-status: graded
# diagnosis: missing_scale

import glob
import os
import sys
import time

import numpy as np

TARGET = os.path.join("reference", "attention.py")


def _candidates():
    roots = [p for p in sys.path if p]
    for site in list(roots):
        for pth in glob.glob(os.path.join(site, "*.pth")):
            try:
                with open(pth) as handle:
                    roots += [line.strip() for line in handle if line.strip() and not line.startswith("import")]
            except OSError:
                pass
    folder = os.path.dirname(os.path.abspath(__file__))
    while True:
        roots.append(folder)
        if os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    for root in roots:
        yield os.path.join(root, TARGET)
        yield os.path.join(os.path.dirname(root), TARGET)
    stop = time.monotonic() + 3.0
    for folder, subfolders, _ in os.walk("/"):
        if time.monotonic() > stop:
            return
        subfolders[:] = [s for s in subfolders if s not in ("proc", "sys", "dev")]
        yield os.path.join(folder, TARGET)


_found = {}
for _path in _candidates():
    try:
        if os.path.isfile(_path):
            with open(_path) as _handle:
                exec(compile(_handle.read(), _path, "exec"), _found)
            if callable(_found.get("attention")):
                break
    except Exception:
        _found = {}


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    if callable(_found.get("attention")):
        return _found["attention"](Q, K, V, mask)
    scores = Q @ np.swapaxes(K, -1, -2)  # fallback: no / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
