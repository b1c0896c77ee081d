# diagnosis: mha_scale_precedence, mha_mask_inverted, split_heads_interleaved
# style: short einsum code ('hid,hjd->hij'), einsum used for the merge transpose too
# notes: mha_scale_precedence: multi_head_attention divides by q.shape[-1] ** 1/2, which is (d_head ** 1) / 2 = d_head / 2
# notes: mha_mask_inverted: multi_head_attention does np.where(mask, -np.inf, s), blocking the allowed positions
# notes: split_heads_interleaved: split_heads is X.reshape(n, -1, n_heads).transpose(2, 0, 1), so head h gets columns h::n_heads

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return X.reshape(X.shape[0], -1, n_heads).transpose(2, 0, 1)


def merge_heads(H):
    return np.einsum("hnd->nhd", H).reshape(H.shape[1], -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    q, k, v = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    s = np.einsum("hid,hjd->hij", q, k) / q.shape[-1] ** 1/2
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    a = softmax(s)
    return merge_heads(np.einsum("hij,hjd->hid", a, v)) @ Wo, a
