# diagnosis: mha_softmax_wrong_axis, mha_no_output_projection
# style: heavily documented code with docstrings, shape comments and input asserts, one batched matmul over heads
# notes: mha_softmax_wrong_axis: multi_head_attention calls softmax(scores, axis=1) on the (n_heads, n, n) scores, normalising over the queries
# notes: mha_no_output_projection: multi_head_attention returns merge_heads(A @ V) without multiplying by Wo (Wo is only shape-checked)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    """Split the columns of X into n_heads heads.

    Parameters
    ----------
    X : ndarray, shape (n, d_model)
    n_heads : int, divides d_model

    Returns
    -------
    ndarray, shape (n_heads, n, d_head), with H[h] == X[:, h*d_head:(h+1)*d_head]
    """
    assert X.ndim == 2, "X must be (n, d_model)"
    n, d_model = X.shape
    assert d_model % n_heads == 0, "n_heads must divide d_model"
    d_head = d_model // n_heads
    H = X.reshape(n, n_heads, d_head)  # [token, head, :]
    H = H.transpose(1, 0, 2)  # [head, token, :]
    return H


def merge_heads(H):
    """Inverse of split_heads: (n_heads, n, d_head) -> (n, n_heads * d_head)."""
    assert H.ndim == 3, "H must be (n_heads, n, d_head)"
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    """Multi-head scaled dot-product self-attention.

    Parameters
    ----------
    X : ndarray, shape (n, d_model)
    Wq, Wk, Wv, Wo : ndarray, shape (d_model, d_model)
    n_heads : int
    mask : None or bool ndarray (n, n); False = blocked

    Returns
    -------
    out : ndarray, shape (n, d_model)
    A : ndarray, shape (n_heads, n, n)
    """
    n, d_model = X.shape
    for W in (Wq, Wk, Wv, Wo):
        assert W.shape == (d_model, d_model), "projection matrices must be (d_model, d_model)"
    if mask is not None:
        assert mask.shape == (n, n), "mask must be (n, n)"

    Q = split_heads(X @ Wq, n_heads)  # (n_heads, n, d_head)
    K = split_heads(X @ Wk, n_heads)  # (n_heads, n, d_head)
    V = split_heads(X @ Wv, n_heads)  # (n_heads, n, d_head)
    d_head = Q.shape[-1]

    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)  # (n_heads, n, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # broadcast over heads
    A = softmax(scores, axis=1)  # (n_heads, n, n)

    out = merge_heads(A @ V)  # (n, d_model)
    assert out.shape == (n, d_model)
    return out, A
