# diagnosis: mha_mask_inverted, mha_scale_by_d_head
# style: PyTorch-style code with a NumPy masked_fill(x, mask, value) helper (value goes where mask is True)
# notes: mha_mask_inverted: multi_head_attention calls masked_fill(scores, mask, -np.inf), filling the allowed positions (True) instead of the blocked ones
# notes: mha_scale_by_d_head: multi_head_attention divides the scores by d_head instead of sqrt(d_head)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def masked_fill(x, mask, value):
    """NumPy stand-in for torch.Tensor.masked_fill: a copy of x with `value` where mask is True."""
    out = np.array(x, copy=True)
    out[np.broadcast_to(mask, out.shape)] = value
    return out


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).swapaxes(0, 1)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.swapaxes(0, 1).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    d_head = X.shape[1] // n_heads
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)

    scores = Q @ K.swapaxes(-1, -2) / d_head
    if mask is not None:
        scores = masked_fill(scores, mask, -np.inf)
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
