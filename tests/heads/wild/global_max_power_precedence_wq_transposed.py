"""Notebook style. softmax subtracts np.max(x) over the whole array ("stability trick"), not
each row's max, so a row far below the largest underflows to 0/0. attention divides by
d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2. self_attention projects with the
transposed weights, X @ Wq.T (and likewise for Wk, Wv), as the notebook did with its square
weights: wrong projections when they are square, a shape error when they are not."""
# must-fail: softmax.large_logits, attention.scaling, attention.matches_reference, self_attention.projections
# diagnosis: softmax_global_max, scale_by_2dk, self_attention_transposes_weights
# style: https://github.com/VikramTaviti/tuts

import numpy as np


def softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x))  # stability trick
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # Step 4: attention scores (Q @ K.T)
    scores = Q @ K.T
    # Step 5: scale the scores
    d_k = Q.shape[1]
    scaled_scores = scores / d_k ** 1/2
    if mask is not None:
        scaled_scores = np.where(mask, scaled_scores, -np.inf)
    # Step 6: softmax row-wise
    attention_weights = softmax(scaled_scores, axis=-1)
    # Step 7: weighted sum of V
    return attention_weights @ V, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    # Transpose so the weight columns match the embedding columns
    Q = X @ Wq.T
    K = X @ Wk.T
    V = X @ Wv.T
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
