"""softmax shifts the logits by their mean instead of their max, so a row spanning +/-1000
overflows. attention reads the mask as (key, query) and applies mask.T to the
(query, key) scores: with a causal mask every token sees itself and the future but not the
past, and an arbitrary mask hides the wrong entries. Keys are transposed with
K.transpose(0, 2, 1) for a batch and K.T otherwise."""
# must-fail: softmax.large_logits, mask.no_future_leakage, mask.first_token_self, mask.arbitrary
# diagnosis: softmax_subtracts_mean, mask_transposed
# style: luisdecunto/ml-roadmap/guides/transformer_guide.md

import numpy as np


def softmax(x, axis=-1):
    x = x - x.mean(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    K_T = K.transpose(0, 2, 1) if K.ndim == 3 else K.T
    scores = np.matmul(Q, K_T) / np.sqrt(d_k)
    if mask is not None:
        # mask[j, i]: may key j be seen by query i
        mask_T = np.swapaxes(mask, -1, -2)
        scores = np.where(mask_T, scores, -np.inf)
    attention_weights = softmax(scores, axis=-1)
    output = np.matmul(attention_weights, V)
    return output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
