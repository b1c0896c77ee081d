# diagnosis: none
# uncatalogued: 0
# style: einsum everywhere, mask turned into an additive log-mask (log 1 = 0, log 0 = -inf)
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.einsum("nhd->hnd", X.reshape(n, n_heads, d_model // n_heads))


def merge_heads(H):
    h, n, d = H.shape
    return np.einsum("hnd->nhd", H).reshape(n, h * d)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(np.einsum("nd,de->ne", X, Wq), n_heads)
    K = split_heads(np.einsum("nd,de->ne", X, Wk), n_heads)
    V = split_heads(np.einsum("nd,de->ne", X, Wv), n_heads)
    logits = np.einsum("hqd,hkd->hqk", Q, K) * Q.shape[-1] ** -0.5
    if mask is not None:
        with np.errstate(divide="ignore"):
            log_mask = np.log(np.asarray(mask, dtype=float))   # 0 where allowed, -inf where not
        logits = logits + log_mask
    A = softmax(logits, axis=-1)
    out = np.einsum("ne,ef->nf", merge_heads(np.einsum("hqk,hkd->hqd", A, V)), Wo)
    return out, A
