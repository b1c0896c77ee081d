"""softmax subtracts the row MIN rather than the max, so every exponent is >= 0 and large
logits overflow. attention applies the mask after the softmax (weights * mask) without
renormalising, so masked rows no longer sum to 1. self_attention is declared
(X, Wk, Wq, Wv, mask), keys first, so called with (X, Wq, Wk, Wv) it builds the queries from
Wk and the keys from Wq."""
# must-fail: softmax.large_logits, attention.large_logits, mask.rows_sum_to_one, self_attention.projections
# diagnosis: softmax_no_max_shift, mask_after_softmax, self_attention_swapped_projections
# style: jtappen1/Machine-Learning-From-Scratch/models/self-attention/self_attention.py

import numpy as np


def softmax(x, axis=-1):
    e_x = np.exp(x - np.min(x, axis=axis, keepdims=True))
    return e_x / e_x.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = K.shape[1]
    attention_scores = Q @ K.T  # shape n x n
    scaled_scores = attention_scores / np.sqrt(d_k)
    attention_weights = softmax(scaled_scores)
    if mask is not None:
        attention_weights = attention_weights * mask  # zero out the future
    output = attention_weights @ V
    return output, attention_weights


def self_attention(X, Wk, Wq, Wv, mask=None):
    # We next compute Q, K, V
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
