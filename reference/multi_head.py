"""Multi-head attention, the lesson's sequel: the reference every submission is compared against.

This is the lesson's head run on several heads at once. The projections are split into
``n_heads`` stacks of width ``d_head = d_model // n_heads`` (head h holds columns
``h*d_head:(h+1)*d_head``), each head attends with the lesson's formula scaled by
``sqrt(d_head)``, and the heads' outputs are put back side by side and mixed by ``Wo``.
The head is the lesson's reference with keys transposed on their last two axes
(``np.swapaxes(K, -1, -2)``), so one batched matmul serves every head, and one (n, n)
mask broadcasts over all of them.
"""

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (..., n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0, in every head
    A = softmax(scores, axis=-1)  # rows sum to 1
    return A @ V, A  # (..., n_q, d_v), (..., n_q, n_k)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)  # (n_heads, n, d_head)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)  # (n, d_model)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)  # (n_heads, n, d_head)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    heads, A = attention(Q, K, V, mask)  # (n_heads, n, d_head), (n_heads, n, n)
    return merge_heads(heads) @ Wo, A  # (n, d_model), (n_heads, n, n)
