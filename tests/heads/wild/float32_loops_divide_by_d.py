"""Loop-based float32 head. softmax loops over the rows of a 2-D array and exponentiates
each row without subtracting its max: it ignores its axis argument and overflows for large
logits. attention divides the scores by d = d_k itself, not by its square root.
causal_mask fills a float32 matrix with 1.0 where j <= i: the right pattern, not bools."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.scaling, causal_mask.values
# diagnosis: softmax_ignores_axis, softmax_only_2d, softmax_no_max_shift, scale_by_dk, causal_mask_not_bool
# style: marcderoo/attention_benchmark/attention/numba_impl.py

import numpy as np


def softmax(x, axis=-1):
    n, m = x.shape
    out = np.empty((n, m), dtype=np.float32)
    for i in range(n):
        exps = np.exp(x[i].astype(np.float32))
        out[i] = exps / np.sum(exps)
    return out


def attention(Q, K, V, mask=None):
    Q = Q.astype(np.float32)
    K = K.astype(np.float32)
    V = V.astype(np.float32)
    d = np.float32(Q.shape[1])
    scores = (Q @ K.T) / d
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    weights = softmax(scores)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    mask = np.zeros((n, n), dtype=np.float32)
    for i in range(n):
        for j in range(n):
            if j <= i:
                mask[i, j] = 1.0
    return mask
