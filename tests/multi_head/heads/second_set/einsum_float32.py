# diagnosis: none
# style: jax/flax-like einsum code that computes everything in float32 (cast on entry)
# notes: correct: every matmul is an einsum, the whole layer runs in float32 (results match the reference to float32 tolerance)

import numpy as np

DTYPE = np.float32


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.einsum("nhd->hnd", X.reshape(n, n_heads, d_model // n_heads))


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return np.einsum("hnd->nhd", H).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    X = np.asarray(X, dtype=DTYPE)
    Wq, Wk, Wv, Wo = (np.asarray(W, dtype=DTYPE) for W in (Wq, Wk, Wv, Wo))

    q = split_heads(np.einsum("nd,de->ne", X, Wq), n_heads)
    k = split_heads(np.einsum("nd,de->ne", X, Wk), n_heads)
    v = split_heads(np.einsum("nd,de->ne", X, Wv), n_heads)

    depth = q.shape[-1]
    logits = np.einsum("hqd,hkd->hqk", q, k) / DTYPE(np.sqrt(depth))
    if mask is not None:
        logits = np.where(np.asarray(mask, dtype=bool), logits, DTYPE(-np.inf))
    weights = softmax(logits, axis=-1)

    heads = np.einsum("hqk,hkd->hqd", weights, v)
    out = np.einsum("nd,de->ne", merge_heads(heads), Wo)
    return out, weights
