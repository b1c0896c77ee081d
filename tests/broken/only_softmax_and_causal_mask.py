"""Only softmax and causal_mask are written; attention and self_attention are missing."""
# must-fail: attention.*, mask.*, self_attention.*, extension.*
# must-pass: softmax.*, causal_mask.*
# report-status: graded

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
