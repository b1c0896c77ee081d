# diagnosis: mha_scale_precedence
# style: jax/flax-like einsum code (tokens-first 'qhd,khd->hqk' layout, query pre-scaled as in flax dot_product_attention_weights)
# notes: mha_scale_precedence: multi_head_attention scales the query by depth ** -1/2, which Python reads as (depth ** -1) / 2, i.e. 1/(2*d_head) instead of 1/sqrt(d_head)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, features = X.shape
    return np.moveaxis(X.reshape(n, n_heads, features // n_heads), 1, 0)


def merge_heads(H):
    num_heads, n, head_dim = H.shape
    return np.moveaxis(H, 0, 1).reshape(n, num_heads * head_dim)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    length, features = X.shape
    head_dim = features // n_heads
    # DenseGeneral(features=(num_heads, head_dim)): [length, num_heads, head_dim]
    query = (X @ Wq).reshape(length, n_heads, head_dim)
    key = (X @ Wk).reshape(length, n_heads, head_dim)
    value = (X @ Wv).reshape(length, n_heads, head_dim)

    depth = query.shape[-1]
    query = query * depth ** -1/2
    attn_weights = np.einsum("qhd,khd->hqk", query, key)
    if mask is not None:
        attn_weights = np.where(mask, attn_weights, -np.inf)
    attn_weights = softmax(attn_weights, axis=-1)

    x = np.einsum("hqk,khd->qhd", attn_weights, value)
    out = x.reshape(length, features) @ Wo
    return out, attn_weights
