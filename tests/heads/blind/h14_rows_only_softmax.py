"""
Head whose author thought of everything as "rows of a score matrix".

What is wrong:
- softmax always normalises axis 1 (np.amax/np.sum with axis=1 hard-coded), whatever
  axis it is given: right for the last axis of a 2-D array, wrong for axis=0 or for
  the last axis of a 3-D array.
- attention scales after softmax, softmax(scores) / sqrt(d_k): the softmax sees
  unscaled scores and the weights are then shrunk so rows sum to 1/sqrt(d_k).
- causal_mask returns np.triu(..., k=1): True marks the future positions to hide,
  the opposite of the lesson's convention (True where j <= i).
self_attention is fine.
"""
# diagnosis: softmax_fixed_axis, scale_after_softmax, causal_mask_inverted
# style: lecture-notes code ("scores matrix rows"), np.amax, PyTorch-style "True = masked out" causal mask
import numpy as np


def softmax(x, axis=-1):
    """Softmax over the rows of a score matrix."""
    x_max = np.amax(x, axis=1, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=1, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1) / np.sqrt(d_k)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask=mask)


def causal_mask(n):
    # True marks future positions that must be hidden
    return np.triu(np.ones((n, n), dtype=bool), k=1)
