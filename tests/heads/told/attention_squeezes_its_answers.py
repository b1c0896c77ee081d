"""attention squeezes its answers (np.squeeze(A @ V), np.squeeze(A)), so a size-1 axis vanishes; self_attention is the
lesson's one line over it, and is told with the attention it calls, never blamed alone."""
# must-fail: attention.shapes, self_attention.projections
# diagnosis: none
# told: attention (and softmax, if it calls it) answers every input the diagnosis tried | self_attention (and attention and softmax, if it calls them)
# not-told: self_attention answers every input

import numpy as np

def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)

def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return np.squeeze(A @ V), np.squeeze(A)      # tidy up singleton axes

def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)

def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))

