"""
Batched transformer-repo head (B, T, d) with self_attention written out itself.

What is wrong:
- attention is written for a leading batch axis, np.transpose(K, (0, 2, 1)), so it
  raises on the lesson's 2-D inputs.
- attention also scales by sqrt(V.shape[-1]) = sqrt(d_v) instead of sqrt(d_k).
- self_attention does not call attention; its own code uses K.transpose(0, 2, 1) and
  so also needs a batch axis and raises on 2-D inputs.
- self_attention returns only the output, not (out, A).
softmax and causal_mask are fine.
"""
# diagnosis: attention_needs_batch_axis, scale_wrong_dim, self_attention_needs_batch_axis, self_attention_weights_not_returned
# style: from-scratch batched transformer repo (B, T, C shapes, transpose(0, 2, 1)), self_attention inlined
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention over a batch.

    Q: (B, T, d_k)   K: (B, S, d_k)   V: (B, S, d_v)   mask: (T, S) or (B, T, S)
    """
    d = V.shape[-1]
    scores = Q @ np.transpose(K, (0, 2, 1)) / np.sqrt(d)  # (B, T, S)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    """X: (B, T, d_model) -> (B, T, d_v)."""
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)
