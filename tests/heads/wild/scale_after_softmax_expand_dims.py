"""softmax exponentiates without a max shift and divides by
np.expand_dims(np.sum(t, axis=1), 1), so it always normalises axis 1 whatever axis it is given.
attention divides the softmax OUTPUT by sqrt(d_k) instead of the scores, so every row of the
weights sums to 1/sqrt(d_k) and the output shrinks toward 0."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.rows_sum_to_one, attention.matches_reference
# diagnosis: softmax_no_max_shift, softmax_fixed_axis, scale_after_softmax
# style: Geneww/llm_tools/self_attention.py

import numpy as np


def soft_max(z):
    t = np.exp(z)
    a = np.exp(z) / np.expand_dims(np.sum(t, axis=1), 1)
    return a


def softmax(x, axis=-1):
    return soft_max(x)


def attention(Q, K, V, mask=None):
    score = Q @ K.T
    if mask is not None:
        score = np.where(mask, score, -np.inf)
    score = soft_max(score) / np.sqrt(K.shape[1])
    out = score @ V
    return out, score


def self_attention(X, Wq, Wk, Wv, mask=None):
    query = X @ Wq
    key = X @ Wk
    value = X @ Wv
    return attention(query, key, value, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
