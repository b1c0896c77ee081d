"""Four mistakes in the style of a short learning script. softmax exponentiates without
subtracting the max and divides by np.expand_dims(np.sum(t, axis=1), 1), so it always works
on axis 1 whatever axis it is given. attention never divides the scores by sqrt(d_k).
causal_mask returns np.tril(np.ones((n, n))), floats instead of bools."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.scaling, attention.matches_reference, causal_mask.values
# diagnosis: softmax_no_max_shift, softmax_fixed_axis, missing_scale, causal_mask_not_bool
# style: Fangzhou-Code/Learn_AI/第四阶段：大模型/self_attention.py

import numpy as np


def softmax(z, axis=-1):
    t = np.exp(z)
    return t / np.expand_dims(np.sum(t, axis=1), 1)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = softmax(scores)
    out = scores @ V
    return out, scores


def self_attention(X, Wq, Wk, Wv, mask=None):
    query = X @ Wq
    key = X @ Wk
    value = X @ Wv
    return attention(query, key, value, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n)))
