"""
Head that masks by indexing with np.triu_indices and scales "after exp".

What is wrong:
- attention ignores what the mask says: whenever a mask is given it writes -inf on
  the upper triangle (np.triu_indices(n_q, k=1, m=n_k)), i.e. it always applies a
  causal mask, so any other mask (padding, say) is wrong.
- attention never scales the scores: it divides the exponentials by sqrt(d_k)
  instead, and that factor cancels when the row is normalised, so the weights are
  those of unscaled scores.
- causal_mask sets True on np.triu_indices(n, 1): it marks the future positions to
  hide, the opposite of the lesson's convention (True where j <= i).
softmax and self_attention are fine.  (The division after exp is not a separate
mistake: it changes nothing; the missing division of the scores is the mistake.)
"""
# diagnosis: mask_always_causal, missing_scale, causal_mask_inverted
# style: index-based masking (np.triu_indices, fancy-index assignment), inline stable softmax in attention
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x = x - x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    return x / x.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    scores = Q @ K.T
    if mask is not None:
        scores[np.triu_indices(n_q, k=1, m=n_k)] = -np.inf  # future keys
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    e = e / np.sqrt(d_k)
    A = e / e.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    m[np.triu_indices(n, 1)] = True
    return m
