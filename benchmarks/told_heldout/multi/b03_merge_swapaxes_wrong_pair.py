# diagnosis: mha_no_output_projection
# mistake: merge_heads: it swaps axes 1 and 2 (np.swapaxes(H, 1, 2)) instead of 0 and 1 before reshaping, so the columns of different tokens and heads are scrambled.
# mistake: multi_head_attention: it returns the merged heads without multiplying them by Wo.
# uncatalogued: 1
# style: batched matmul with swapaxes, written from memory of torch's .transpose(1, 2)
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.swapaxes(X.reshape(n, n_heads, d_model // n_heads), 0, 1)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    # like y.transpose(1, 2).contiguous().view(B, T, C)
    return np.swapaxes(H, 1, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    q = split_heads(X @ Wq, n_heads)
    k = split_heads(X @ Wk, n_heads)
    v = split_heads(X @ Wv, n_heads)
    att = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        att = np.where(mask, att, -np.inf)
    att = softmax(att, axis=-1)
    y = merge_heads(att @ v)
    return y, att
