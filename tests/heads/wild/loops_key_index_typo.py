"""Loop-based head, in the style of a compiled benchmark. softmax walks the rows of a 2-D
array, each shifted by its own max: right for the last axis, but it ignores its axis argument
(and fails on anything that is not 2-D). attention's score loop has an index typo,
scores[i, j] = Q[i] @ K[i], so every score in row i is the same and each query spreads its
weight uniformly over the keys it may see."""
# must-fail: softmax.axis, attention.worked_example, attention.matches_reference
# diagnosis: softmax_ignores_axis, softmax_only_2d, scores_wrong_key_index
# style: marcderoo/attention_benchmark/attention/numba_impl.py

import numpy as np


def softmax(x, axis=-1):
    n, m = x.shape
    out = np.empty((n, m), dtype=np.float64)
    for i in range(n):
        row = x[i]
        max_val = np.max(row)
        exps = np.exp(row - max_val)
        out[i] = exps / np.sum(exps)
    return out


def attention(Q, K, V, mask=None):
    n_q, d = Q.shape
    n_k = K.shape[0]
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            scores[i, j] = Q[i] @ K[i] / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores)
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            out[i] += weights[i, j] * V[j]
    return out, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            mask[i, j] = True
    return mask
