"""The module's softmax is np.exp(x) / np.sum(np.exp(x)): no max shift and one total over the
whole array, so a 2-D input sums to 1 overall, not per row. attention does not call it: it
computes its own stable softmax inline, but divides the exponentials by sqrt(d_k) after exp
instead of dividing the scores before it; the factor cancels in the normalisation, so the
weights are those of unscaled scores."""
# must-fail: softmax.rows_sum_to_one, softmax.large_logits, softmax.matches_reference, attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: softmax_no_max_shift, softmax_global_normalization, scale_after_exp
# style: https://www.ainiketan.in/papers/08-transformer-2017/sections/06-the-code/

import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.sum(np.exp(x))


def attention(Q, K, V, mask=None):
    """
    Compute Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

    Q: (seq_len, d_k), K: (seq_len, d_k), V: (seq_len, d_v)
    mask: optional (seq_len, seq_len) boolean, True = may attend
    """
    d_k = Q.shape[-1]

    # Step 1: Q K^T, all pairwise dot products
    scores = Q @ K.T

    # Step 2: mask
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)

    # Step 3: softmax row-wise, scaled by sqrt(d_k)
    scores_shifted = scores - scores.max(axis=-1, keepdims=True)
    exp_scores = np.exp(scores_shifted) / np.sqrt(d_k)
    attn_weights = exp_scores / exp_scores.sum(axis=-1, keepdims=True)

    # Step 4: weighted sum of values
    output = attn_weights @ V
    return output, attn_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
