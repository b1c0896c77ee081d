"""multi_head_attention projects with the transposed weights, PyTorch's nn.Linear way (x @ W.T)."""
# must-fail: multi_head_attention.one_head, multi_head_attention.per_head, multi_head_attention.scale, multi_head_attention.output_projection, multi_head_attention.arbitrary_mask, multi_head_attention.fully_masked_row_nan, multi_head_attention.matches_reference
# diagnosis: mha_projections_transposed

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W.T, n_heads) for W in (Wq, Wk, Wv))
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return merge_heads(A @ V) @ Wo.T, A
