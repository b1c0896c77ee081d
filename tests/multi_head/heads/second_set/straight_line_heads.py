# diagnosis: mha_reshape_without_transpose, mha_scale_wrong_dim
# style: straight-line student code that writes helpers but reshapes inline in multi_head_attention
# notes: mha_reshape_without_transpose: multi_head_attention splits Q, K, V inline with (X @ W).reshape(n_heads, n, d_head), no transpose (split_heads itself is right but unused)
# notes: mha_scale_wrong_dim: multi_head_attention divides by np.sqrt(Q.shape[1]), the number of tokens n, instead of Q.shape[-1] = d_head

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return np.swapaxes(X.reshape(n, n_heads, d_head), 0, 1)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return np.swapaxes(H, 0, 1).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads

    Q = (X @ Wq).reshape(n_heads, n, d_head)
    K = (X @ Wk).reshape(n_heads, n, d_head)
    V = (X @ Wv).reshape(n_heads, n, d_head)

    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)

    heads = A @ V
    out = heads.transpose(1, 0, 2).reshape(n, d_model) @ Wo
    return out, A
