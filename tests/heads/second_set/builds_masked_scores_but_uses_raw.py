"""attention computes masked scores with a _masked_fill() helper but then passes the unmasked scores to softmax, so the mask has no effect."""
# must-fail: mask.no_future_leakage, mask.arbitrary, mask.fully_masked_row_nan, self_attention.mask_passed, attention.matches_reference
# diagnosis: mask_ignored

import numpy as np


def _masked_fill(scores, mask, value):
    filled = scores.copy()
    filled[~mask] = value
    return filled


def softmax(x, axis=-1):
    # subtract the biggest value so that exp does not overflow
    biggest = np.max(x, axis=axis, keepdims=True)
    exponentials = np.exp(x - biggest)
    total = np.sum(exponentials, axis=axis, keepdims=True)
    return exponentials / total


def attention(Q, K, V, mask=None):
    # step 1: how well does every query match every key
    d_k = Q.shape[1]
    raw_scores = np.dot(Q, K.T)
    # step 2: scale
    scores = raw_scores / np.sqrt(d_k)
    # step 3: mask
    if mask is not None:
        masked_scores = _masked_fill(scores, mask, -np.inf)
    else:
        masked_scores = scores
    # step 4: softmax
    attention_weights = softmax(scores, axis=-1)
    # step 5: weighted average of the values
    output = np.dot(attention_weights, V)
    return output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    queries = np.dot(X, Wq)
    keys = np.dot(X, Wk)
    values = np.dot(X, Wv)
    return attention(queries, keys, values, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
