"""softmax(x, axis=-1, temperature=1) divides by the temperature and then normalises with
np.sum(..., axis=0), whatever axis it is given, and never subtracts the max. attention uses
the temperature for the scaling but passes temperature=d_k, so the scores are divided by d_k
instead of sqrt(d_k) (and, through softmax, normalised over queries)."""
# must-fail: softmax.rows_sum_to_one, softmax.axis, softmax.large_logits, attention.worked_example, attention.rows_sum_to_one, attention.matches_reference
# diagnosis: softmax_fixed_axis, softmax_no_max_shift, scale_by_dk
# style: pluu2/MLhelper/attention.py

import numpy as np


def softmax(x, axis=-1, temperature=1):  # default temperature is 1
    return np.exp(x / temperature) / np.sum(np.exp(x / temperature), axis=0)


def attention(Q, K, V, mask=None):
    logits = np.dot(Q, K.T)
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    weights = softmax(logits, temperature=K.shape[1])  # temperature = key size
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
