"""softmax exponentiates without a max shift and divides by np.sum(..., axis=1) expanded back
to a column, always axis 1 whatever axis it is given. attention multiplies query @ key
without transposing the keys, which only runs when d_k equals the number of keys, and is
then the wrong product."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.shapes, attention.matches_reference
# diagnosis: softmax_no_max_shift, softmax_fixed_axis, keys_not_transposed
# style: Geneww/llm_tools/self_attention.py

import numpy as np


def softmax(z, axis=-1):
    t = np.exp(z)
    return t / np.expand_dims(np.sum(t, axis=1), 1)


def attention(query, key, value, mask=None):
    score = query @ key / np.sqrt(query.shape[1])
    if mask is not None:
        score = np.where(mask, score, -np.inf)
    score = softmax(score)
    out = score @ value
    return out, score


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
