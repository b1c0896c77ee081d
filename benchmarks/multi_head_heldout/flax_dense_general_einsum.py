# diagnosis: none
# style: jax/flax.linen MultiHeadDotProductAttention-like einsum code: tokens-first (length, heads, head_dim) layout, mask turned into an additive bias, DenseGeneral output
# notes: correct: never transposes; einsum 'qhd,khd->hqk' and 'hqk,khd->qhd' index the heads explicitly and Wo is reshaped to (heads, head_dim, features); bias is 0 / -inf

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    length, features = X.shape
    return np.einsum("lhd->hld", X.reshape(length, n_heads, features // n_heads))


def merge_heads(H):
    num_heads, length, head_dim = H.shape
    return np.einsum("hld->lhd", H).reshape(length, num_heads * head_dim)


def dot_product_attention_weights(query, key, bias=None):
    """query, key: [length, num_heads, head_dim]. Returns [num_heads, q_length, kv_length]."""
    depth = query.shape[-1]
    query = query / np.sqrt(depth)
    attn_weights = np.einsum("qhd,khd->hqk", query, key)
    if bias is not None:
        attn_weights = attn_weights + bias
    return softmax(attn_weights, axis=-1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    length, features = X.shape
    head_dim = features // n_heads

    def dense_general(W):  # DenseGeneral(features=(num_heads, head_dim))
        return (X @ W).reshape(length, n_heads, head_dim)

    query, key, value = dense_general(Wq), dense_general(Wk), dense_general(Wv)

    bias = None
    if mask is not None:
        bias = np.where(mask, 0.0, -np.inf)  # attention bias, broadcast over heads

    attn_weights = dot_product_attention_weights(query, key, bias)
    x = np.einsum("hqk,khd->qhd", attn_weights, value)
    # DenseGeneral(features, axis=(-2, -1)): contract heads and head_dim at once
    out = np.einsum("qhd,hdf->qf", x, Wo.reshape(n_heads, head_dim, features))
    return out, attn_weights
