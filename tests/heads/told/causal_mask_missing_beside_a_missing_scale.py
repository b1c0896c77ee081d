"""Half written: attention does not scale its scores, and causal_mask has no def yet.
The missing function is told missing, never that it "raises", beside the named mistake."""
# must-fail: causal_mask.values, attention.scaling
# diagnosis: missing_scale
# told: causal_mask is missing | does not define causal_mask()
# not-told: raises an exception | answers differently

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)
