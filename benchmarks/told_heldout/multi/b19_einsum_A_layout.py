# diagnosis: none
# mistake: multi_head_attention: it returns A in the (n, n_heads, n) layout its einsum produced ("qhd,khd->qhk") instead of (n_heads, n, n).
# uncatalogued: 1
# style: einsum-only implementation keeping tokens first, like jax/flax attention code
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d = X.shape
    return np.einsum("nhd->hnd", X.reshape(n, n_heads, d // n_heads))


def merge_heads(H):
    h, n, d = H.shape
    return np.einsum("hnd->nhd", H).reshape(n, h * d)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    q = (X @ Wq).reshape(n, n_heads, d_head)
    k = (X @ Wk).reshape(n, n_heads, d_head)
    v = (X @ Wv).reshape(n, n_heads, d_head)
    logits = np.einsum("qhd,khd->qhk", q, k) / np.sqrt(d_head)
    if mask is not None:
        logits = np.where(mask[:, None, :], logits, -np.inf)
    weights = softmax(logits, axis=-1)
    y = np.einsum("qhk,khd->qhd", weights, v).reshape(n, d_model)
    return y @ Wo, weights
