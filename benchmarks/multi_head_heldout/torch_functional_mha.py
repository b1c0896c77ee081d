# diagnosis: mha_weights_averaged, mha_projections_transposed, mha_scale_d_model
# style: port of torch.nn.functional.multi_head_attention_forward (F.linear projections, scaling, bool attn_mask, averaged attention weights)
# notes: mha_weights_averaged: multi_head_attention returns attn_output_weights.sum(axis=0) / n_heads, like torch's average_attn_weights=True, shape (n, n)
# notes: mha_projections_transposed: every projection goes through linear(x, w) = x @ w.T (F.linear), for Wq, Wk, Wv and Wo
# notes: mha_scale_d_model: multi_head_attention uses scaling = float(embed_dim) ** -0.5 instead of head_dim ** -0.5

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def linear(x, w):
    """F.linear(x, w) with no bias."""
    return x @ w.T


def split_heads(X, n_heads):
    tgt_len, embed_dim = X.shape
    head_dim = embed_dim // n_heads
    # q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    return X.reshape(tgt_len, n_heads, head_dim).transpose(1, 0, 2)


def merge_heads(H):
    num_heads, tgt_len, head_dim = H.shape
    # attn_output.transpose(0, 1).contiguous().view(tgt_len, embed_dim)
    return H.transpose(1, 0, 2).reshape(tgt_len, num_heads * head_dim)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    tgt_len, embed_dim = X.shape
    head_dim = embed_dim // n_heads
    assert head_dim * n_heads == embed_dim, "embed_dim must be divisible by num_heads"
    scaling = float(embed_dim) ** -0.5

    q = linear(X, Wq) * scaling
    k = linear(X, Wk)
    v = linear(X, Wv)

    q = split_heads(q, n_heads)
    k = split_heads(k, n_heads)
    v = split_heads(v, n_heads)

    attn_output_weights = np.matmul(q, k.transpose(0, 2, 1))
    if mask is not None:
        attn_mask = np.logical_not(mask)  # torch's bool attn_mask: True = not allowed
        attn_output_weights = np.where(attn_mask, -np.inf, attn_output_weights)
    attn_output_weights = softmax(attn_output_weights, axis=-1)

    attn_output = np.matmul(attn_output_weights, v)
    attn_output = linear(merge_heads(attn_output), Wo)

    # average attention weights over heads
    return attn_output, attn_output_weights.sum(axis=0) / n_heads
