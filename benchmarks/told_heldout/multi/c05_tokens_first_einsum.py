# diagnosis: none
# uncatalogued: 0
# style: tokens-first (n, h, d) layout inside with einsum, A moved back to (n_heads, n, n), list-based merge
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.moveaxis(X.reshape(n, n_heads, -1), 1, 0)


def merge_heads(H):
    return np.hstack([head for head in H])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    q = (X @ Wq).reshape(n, n_heads, d_head)
    k = (X @ Wk).reshape(n, n_heads, d_head)
    v = (X @ Wv).reshape(n, n_heads, d_head)
    logits = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(d_head)
    if mask is not None:
        logits = np.where(mask[None, :, :], logits, -np.inf)
    A = softmax(logits, axis=-1)
    heads = np.einsum("hqk,khd->hqd", A, v)
    return merge_heads(heads) @ Wo, A
