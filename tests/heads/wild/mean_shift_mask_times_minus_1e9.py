"""softmax shifts the logits by their mean instead of their max (x - x.mean(...)): still exact
on small inputs, but a row holding both +1000 and -1000 overflows. attention adds mask * -1e9,
the tutorials' convention in which 1 marks a BLOCKED position: with the lesson's masks
(True = may attend) it penalises exactly the allowed keys and leaves the future open, and
with a finite -1e9 a fully masked row is not nan. Keys are transposed with
K.transpose(0, 2, 1) for a batch and K.T otherwise."""
# must-fail: softmax.large_logits, mask.no_future_leakage, mask.first_token_self, mask.fully_masked_row_nan, self_attention.mask_passed
# diagnosis: softmax_subtracts_mean, mask_inverted, mask_large_negative
# style: luisdecunto/ml-roadmap/guides/transformer_guide.md

import numpy as np


def softmax(x, axis=-1):
    x = x - np.mean(x, axis=axis, keepdims=True)  # centre the logits for stability
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]

    # Scores: QK^T / sqrt(d_k)
    K_T = K.transpose(0, 2, 1) if K.ndim == 3 else K.T
    scores = np.matmul(Q, K_T) / np.sqrt(d_k)

    # Apply mask (for decoder)
    if mask is not None:
        scores = scores + (mask * -1e9)

    # Attention weights
    attention_weights = softmax(scores, axis=-1)

    # Weighted sum of values
    output = np.matmul(attention_weights, V)
    return output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
