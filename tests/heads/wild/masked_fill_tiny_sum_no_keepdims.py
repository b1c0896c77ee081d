"""softmax keeps the dims for the max but not for the sum (e / e.sum(axis=axis)), so along
the last axis of a 2-D array each entry is divided by the wrong row's total. attention
fills masked scores with 1e-15, as in masked_fill(mask == 0, 1e-15): a score of about 0, not
-inf, so masked keys keep a weight like an unmasked zero score."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, mask.no_future_leakage, mask.first_token_self
# diagnosis: softmax_no_keepdims, mask_zero_fill
# style: PSRahul/Transformer_Learner/util.py

import math

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis)


def attention(query, key, value, mask=None):
    d_k = query.shape[-1]
    attention_logits = np.matmul(query, key.T)
    attention_logits = attention_logits / math.sqrt(d_k)
    if mask is not None:
        attention_logits = np.where(mask == 0, 1e-15, attention_logits)
    attention = softmax(attention_logits, axis=-1)
    value = np.matmul(attention, value)
    return value, attention


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
