# diagnosis: none
# mistake: multi_head_attention: it clips the scaled scores to [-10, 10] before softmax, which changes the weights whenever a score is larger than 10 in size.
# uncatalogued: 1
# style: "stable training" trick copied from an RL codebase, einsum
import numpy as np

LOGIT_CLIP = 10.0


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
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    logits = np.einsum("hqd,hkd->hqk", Q, K) / np.sqrt(Q.shape[-1])
    logits = np.clip(logits, -LOGIT_CLIP, LOGIT_CLIP)
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    A = softmax(logits, axis=-1)
    out = merge_heads(np.einsum("hqk,hkd->hqd", A, V)) @ Wo
    return out, A
