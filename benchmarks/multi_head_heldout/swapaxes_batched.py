# diagnosis: mha_softmax_wrong_axis
# style: batched matmul over the heads with np.swapaxes, helpers via reshape + swapaxes, positional softmax axis argument
# notes: mha_softmax_wrong_axis: multi_head_attention calls softmax(scores, 0) on the (n_heads, n, n) scores, normalising across heads

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n = X.shape[0]
    return np.swapaxes(X.reshape(n, n_heads, -1), 0, 1)


def merge_heads(H):
    n = H.shape[1]
    return np.swapaxes(H, 0, 1).reshape(n, -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # (n_heads, n, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, 0)
    return merge_heads(A @ V) @ Wo, A
