"""softmax subtracts the row mean instead of the row max, so a row spanning +/-1000 overflows.
attention rounds the weights to 4 decimals, as in the notebook printout, before using them,
so the weights and the output are off by up to 5e-5 per weight. causal_mask returns
np.tril(np.ones((n, n), dtype=int)): the right pattern, as integers instead of bools."""
# must-fail: softmax.large_logits, attention.matches_reference, causal_mask.values
# diagnosis: softmax_subtracts_mean, rounds_weights, causal_mask_not_bool
# style: https://github.com/KawsarAhmad43/Learnify

import numpy as np


def softmax(z, axis=-1):
    z = z - z.mean(axis=axis, keepdims=True)
    exp_z = np.exp(z)
    return exp_z / np.sum(exp_z, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # Attention scores (Q @ K_transpose), scaled by sqrt(d_k)
    d_k = Q.shape[1]
    scores = np.dot(Q, K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    attention_weights = np.round(softmax(scores, axis=1), 4)
    # Weighted sum (weights @ values)
    output = np.dot(attention_weights, V)
    return output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=int))
