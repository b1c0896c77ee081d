# diagnosis: mha_softmax_wrong_axis, mha_mask_ignored
# style: careful-looking student code with docstrings, asserts and a preallocated loop over heads
# notes: mha_softmax_wrong_axis: multi_head_attention takes softmax(S_h, axis=0) of each (n, n) head score matrix, normalising over the queries
# notes: mha_mask_ignored: multi_head_attention accepts mask and checks its shape, but never applies it to the scores

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    """Return H with H[h] == X[:, h*d_head:(h+1)*d_head]."""
    n, d_model = X.shape
    assert d_model % n_heads == 0
    d_head = d_model // n_heads
    H = np.empty((n_heads, n, d_head), dtype=X.dtype)
    for h in range(n_heads):
        H[h] = X[:, h * d_head:(h + 1) * d_head]
    return H


def merge_heads(H):
    """Inverse of split_heads."""
    n_heads, n, d_head = H.shape
    out = np.empty((n, n_heads * d_head), dtype=H.dtype)
    for h in range(n_heads):
        out[:, h * d_head:(h + 1) * d_head] = H[h]
    return out


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    """Multi-head attention, one head at a time.

    Returns out (n, d_model) and A (n_heads, n, n).
    """
    n, d_model = X.shape
    assert d_model % n_heads == 0, "n_heads must divide d_model"
    if mask is not None:
        assert mask.shape == (n, n), "mask must be (n, n)"
    d_head = d_model // n_heads

    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)

    A = np.zeros((n_heads, n, n))
    heads = np.zeros((n_heads, n, d_head))
    for h in range(n_heads):
        S_h = Q[h] @ K[h].T / np.sqrt(d_head)
        A[h] = softmax(S_h, axis=0)
        heads[h] = A[h] @ V[h]

    out = merge_heads(heads) @ Wo
    assert out.shape == (n, d_model)
    return out, A
