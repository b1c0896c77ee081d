"""A head that computes nothing: every array it returns is zeros of the right shape, and
causal_mask is right. What it earns is what a head that returns nan instead of zeros may
earn at most (tests/hostile/nan_output_otherwise_zeros.py)."""

import numpy as np


def softmax(x, axis=-1):
    return np.zeros_like(x)


def attention(Q, K, V, mask=None):
    return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
