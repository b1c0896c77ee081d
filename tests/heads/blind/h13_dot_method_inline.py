"""
Head written with the .dot method; self_attention has its own copy of the maths.

What is wrong:
- attention computes the weights correctly but then returns scores @ V: the output
  is built from the raw scores, not from the weights.
- self_attention does not call attention; its inline code divides the logits by d_k
  instead of sqrt(d_k) ...
- ... and returns (attn, out) instead of (out, attn).
softmax and causal_mask are fine; masking with logits[~mask] = -np.inf is fine.
"""
# diagnosis: output_uses_raw_scores, self_attention_scale_by_dk, self_attention_returns_swapped
# style: older-NumPy tutorial style (.dot method calls, "logits"/"attn" names), self_attention inlined
import numpy as np


def softmax(x, axis=-1):
    x_shift = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x_shift)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = Q.dot(K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    output = scores.dot(V)
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X.dot(Wq), X.dot(Wk), X.dot(Wv)
    d_k = Q.shape[1]
    logits = Q.dot(K.T) / d_k
    if mask is not None:
        logits[~mask] = -np.inf
    attn = softmax(logits, axis=1)
    return attn, attn.dot(V)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
