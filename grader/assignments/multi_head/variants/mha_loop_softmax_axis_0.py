"""multi_head_attention loops over heads and takes each head's softmax over axis 0, the queries."""
# must-fail: multi_head_attention.rows_sum_to_one, multi_head_attention.one_head, multi_head_attention.worked_example, multi_head_attention.matches_reference
# diagnosis: mha_softmax_wrong_axis

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
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]
    outs, weights = [], []
    for h in range(n_heads):
        scores = Q[h] @ K[h].T / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A_h = softmax(scores, axis=0)
        outs.append(A_h @ V[h])
        weights.append(A_h)
    return merge_heads(np.stack(outs)) @ Wo, np.stack(weights)
