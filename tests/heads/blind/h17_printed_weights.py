"""
Course notebook head tuned to print nice attention tables.

What is wrong:
- softmax divides by e.sum() over the whole array, so only the grand total is 1,
  not each row.
- attention uses mask.T in np.where, so mask[i, j] is read as "key i may be seen by
  query j": under a causal mask each token sees itself and the tokens after it.
- attention rounds the weights to 4 decimals (np.round(..., 4)) before returning
  and using them, so they are slightly off and rows no longer sum exactly to 1.
self_attention and causal_mask are fine.
"""
# diagnosis: softmax_global_normalization, mask_transposed, rounds_weights
# style: Jupyter course notebook (rounded tables for printing, np.where masking)
import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum()


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask.T, scores, -np.inf)
    A = np.round(softmax(scores, axis=-1), 4)  # 4 decimals is plenty for the tables
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    out, A = attention(Q, K, V, mask=mask)
    return out, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=0)
