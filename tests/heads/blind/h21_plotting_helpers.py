"""
Head from a visualisation blog post (heatmaps of attention).

What is wrong:
- softmax divides the exponentials by their maximum instead of their sum (the line
  was copied from the np.max line above), so rows do not sum to 1.
- attention returns (out, A.T): the output is right but the weights come back
  transposed ("keys on the x axis" for plotting).
- self_attention makes its projections from (Wq, Wv, Wk): keys with Wv and values
  with Wk.
causal_mask is fine.
"""
# diagnosis: weights_returned_transposed, self_attention_mixed_projections
# unnamed: softmax divides by the largest exponential (declared softmax_normalizes_by_max when written: an id no answer can tell from exp(x - max) not yet divided, since removed)
# style: visualisation blog post (heatmap-oriented return values, list-comprehension projections)
import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.max(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = A @ V
    return out, A.T  # (keys, queries): keys on the x axis of the heatmap


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = [X @ W for W in (Wq, Wv, Wk)]
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    return np.tri(n, n, 0, dtype=bool)
