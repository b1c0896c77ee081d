"""Written like a JAX flash-attention reference: it reads dim and k_len and scales the
queries by 1 / sqrt(k_len), the number of keys, instead of 1 / sqrt(d_k); it fills masked
scores with MASK_VALUE = -1e10, a finite number, so a fully masked row is not nan; and
self_attention calls attention without the mask, so a causal self-attention sees the future."""
# must-fail: attention.worked_example, attention.scaling, mask.fully_masked_row_nan, self_attention.mask_passed
# diagnosis: scale_wrong_dim, mask_large_negative, self_attention_drops_mask
# style: lucidrains/flash-attention-jax/flash_attention_jax/attention.py

import numpy as np

MASK_VALUE = -1e10


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    dim, k_len = Q.shape[-1], K.shape[-2]
    scale = 1 / np.sqrt(k_len)

    q = Q * scale
    sim = q @ K.T

    if mask is not None:
        sim = np.where(mask, sim, MASK_VALUE)

    attn = softmax(sim, axis=-1)
    return attn @ V, attn


def self_attention(X, Wq, Wk, Wv, mask=None):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    return attention(q, k, v)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
