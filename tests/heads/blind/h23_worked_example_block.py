"""
Head that was debugged against the lesson's worked example only.

What is wrong:
- attention divides by np.sqrt(2): the worked example's d_k is 2, so the example
  comes out right, but any other d_k is scaled wrongly.
- self_attention adds a residual connection, returning X + out instead of out (it
  raises when d_v != d_model and is wrong otherwise).
softmax and causal_mask are fine.
"""
# diagnosis: none
# declared hardcoded_example when written: a divisor fixed at sqrt(2) follows its input (hardcoded_example is a head proven not to), and is told as observed
# unnamed: self_attention adds a residual connection (returns X + out instead of out)
# style: transformer-block tutorial checked only on the lesson's worked example (residual "x + attn(x)")
import numpy as np


def softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = (Q @ K.T) / np.sqrt(2)  # sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    out, A = attention(X @ Wq, X @ Wk, X @ Wv, mask)
    return X + out, A  # residual connection


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
