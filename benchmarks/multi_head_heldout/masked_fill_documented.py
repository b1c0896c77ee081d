# diagnosis: none
# style: docstrings-and-asserts code with a masked_fill helper that follows torch's convention (fill where the condition is True), called on ~mask
# notes: correct: masked_fill(scores, ~mask, -inf) blocks exactly the False entries; the head is written once and applied to the whole (n_heads, n, d_head) stack

import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along `axis`."""
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def masked_fill(x, condition, value):
    """Return a copy of x holding `value` wherever `condition` is True (like torch.masked_fill)."""
    return np.where(condition, value, x)


def split_heads(X, n_heads):
    """(n, d_model) -> (n_heads, n, d_head): cut each row into heads, then put heads first."""
    n, d_model = X.shape
    assert d_model % n_heads == 0, f"d_model={d_model} is not a multiple of n_heads={n_heads}"
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    """(n_heads, n, d_head) -> (n, n_heads * d_head): tokens first again, then flatten."""
    assert H.ndim == 3
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V over the last two axes; mask False -> weight exactly 0."""
    assert Q.shape[-1] == K.shape[-1], "queries and keys must have the same width"
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        assert mask.shape == scores.shape[-2:], "the mask is one (n, n) array for every head"
        scores = masked_fill(scores, ~mask, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    """Multi-head self-attention. Returns (out, A), out (n, d_model), A (n_heads, n, n)."""
    n, d_model = X.shape
    assert Wq.shape == Wk.shape == Wv.shape == Wo.shape == (d_model, d_model)
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    heads, A = scaled_dot_product_attention(Q, K, V, mask)
    out = merge_heads(heads) @ Wo
    assert out.shape == (n, d_model) and A.shape == (n_heads, n, n)
    return out, A
