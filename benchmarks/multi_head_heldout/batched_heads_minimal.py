# diagnosis: mha_scale_wrong_dim, mha_mask_one_head
# style: minimal batched code with in-place boolean-index masking on the score stack
# notes: mha_scale_wrong_dim: multi_head_attention divides by np.sqrt(K.shape[-2]), the number of tokens, instead of K.shape[-1] = d_head
# notes: mha_mask_one_head: multi_head_attention masks with scores[-1][~mask] = -np.inf, i.e. only the last head

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d = X.shape
    return X.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-2])
    if mask is not None:
        scores[-1][~mask] = -np.inf
    A = softmax(scores)
    return merge_heads(A @ V) @ Wo, A
