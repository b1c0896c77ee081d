"""Follows the widely copied "self-attention from scratch" notebook. softmax is
(np.exp(x).T / np.sum(np.exp(x), axis=-1)).T: it never subtracts the max, so large logits
overflow to inf/inf = nan, and it ignores its axis argument (always the last axis). attention
does not use the mask it is given: whenever a mask is passed it builds the notebook's additive
0/-inf lower-triangular mask from the sequence length, so every mask is treated as causal."""
# must-fail: softmax.axis, softmax.large_logits, attention.large_logits, mask.arbitrary
# diagnosis: softmax_no_max_shift, softmax_ignores_axis, softmax_only_2d, mask_always_causal
# style: andyluken/transformers/SelfAttention.py

import math

import numpy as np


def softmax(x, axis=-1):
    return (np.exp(x).T / np.sum(np.exp(x), axis=-1)).T


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scaled = np.matmul(Q, np.transpose(K)) / math.sqrt(d_k)
    if mask is not None:
        # MASK: 0 where we may look, -inf in the future
        seq_len = scaled.shape[0]
        M = np.tril(np.ones((seq_len, seq_len)))
        M[M == 0] = -np.inf
        M[M == 1] = 0
        scaled = scaled + M
    attention = softmax(scaled)
    out = np.matmul(attention, V)
    return out, attention


def self_attention(X, Wq, Wk, Wv, mask=None):
    q = np.matmul(X, Wq)
    k = np.matmul(X, Wk)
    v = np.matmul(X, Wv)
    return attention(q, k, v, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n))) == 1
