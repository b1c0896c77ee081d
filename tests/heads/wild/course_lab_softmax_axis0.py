"""Copies a course lab's softmax(x, axis=0) built with np.expand_dims: axis 0 by default (each
column sums to 1) and no max shift. attention calls softmax(scores) with that default, so
the weights are normalised over queries, and it never divides the scores by sqrt(d_k)."""
# must-fail: softmax.rows_sum_to_one, softmax.large_logits, attention.worked_example, attention.rows_sum_to_one, attention.scaling, attention.matches_reference
# diagnosis: softmax_wrong_axis, softmax_no_max_shift, missing_scale
# style: maximistic/Natural-Language-Processing-with-Attention-Models/BasicAttention.py

import numpy as np


def softmax(x, axis=0):
    """Softmax of x along an axis.

    axis=0 makes each column sum to 1, axis=1 makes each row sum to 1.
    """
    return np.exp(x) / np.expand_dims(np.sum(np.exp(x), axis=axis), axis)


def attention(Q, K, V, mask=None):
    # alignment scores of every query against every key
    scores = np.matmul(Q, K.T)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # weight distribution
    weights = softmax(scores)
    context = np.matmul(weights, V)
    return context, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
