"""Work in progress: only softmax has been written into the handed-out template.

Finished: softmax, correct (per-row max shift, exp, divide by the row sums, keepdims=True).
Unfinished: attention, self_attention and causal_mask are still the untouched template,
each raising NotImplementedError("... is not written yet").
"""
# unfinished: attention, self_attention, causal_mask
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    """Turn scores into probabilities along `axis`."""
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention. Returns (out, A)."""
    raise NotImplementedError("attention is not written yet")


def self_attention(X, Wq, Wk, Wv, mask=None):
    """Project X to Q, K, V and run attention. Returns (out, A)."""
    raise NotImplementedError("self_attention is not written yet")


def causal_mask(n):
    """Boolean (n, n) mask, True where token i may attend to token j."""
    raise NotImplementedError("causal_mask is not written yet")
