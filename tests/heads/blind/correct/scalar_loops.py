"""
Correct head written with plain Python loops over scalars (exp one number at a time,
stable shift by the row maximum found by hand).

softmax moves the requested axis to the end and loops over every 1-D line; a line
that is entirely -inf gives nan (its shifted values are -inf - -inf = nan), as in the
lesson.  attention computes every dot product, weight and output entry in loops.
"""
# diagnosis: none
# style: explicit scalar loops (hand-found max, scalar exp, no vectorisation), numpy only for storage
import numpy as np


def _softmax_line(values):
    top = values[0]
    for v in values:
        if v > top:
            top = v
    exps = [np.exp(v - top) for v in values]
    total = np.float64(0.0)
    for e in exps:
        total += e
    return [e / total for e in exps]


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    moved = np.moveaxis(x, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    out = np.zeros_like(lines)
    with np.errstate(invalid="ignore"):
        for r in range(lines.shape[0]):
            out[r, :] = _softmax_line(list(lines[r]))
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k, d_v = V.shape
    root = np.sqrt(float(d_k))
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                scores[i, j] = -np.inf
                continue
            dot = 0.0
            for t in range(d_k):
                dot += Q[i, t] * K[j, t]
            scores[i, j] = dot / root
    A = softmax(scores, axis=-1)
    out = np.zeros((n_q, d_v))
    for i in range(n_q):
        for c in range(d_v):
            acc = 0.0
            for j in range(n_k):
                acc += A[i, j] * V[j, c]
            out[i, c] = acc
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            m[i, j] = True
    return m
