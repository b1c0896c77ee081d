"""Multi-head attention in NumPy.

Implement split_heads, merge_heads and multi_head_attention below, following the
handout. Keep their names and signatures: the grader calls them exactly as written here.
softmax is given: it is the lesson's. You may also write your own attention(Q, K, V,
mask=None), the lesson's head, and call it from multi_head_attention.

Check your work at any time with:

    grader check --assignment multi_head multi_head.py
"""

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    """Split the columns of X into n_heads heads.

    X: (n, d_model), with d_model a multiple of n_heads; d_head = d_model // n_heads.
    Returns an array (n_heads, n, d_head) whose head h is X[:, h*d_head:(h+1)*d_head]:
    the same n tokens, each keeping only its own slice of columns. Raises ValueError when
    d_model is no multiple of n_heads (a bonus point).
    """
    raise NotImplementedError("split_heads is not written yet")


def merge_heads(H):
    """Put the heads back side by side: the inverse of split_heads.

    H: (n_heads, n, d_head).
    Returns an array (n, n_heads * d_head) whose columns h*d_head:(h+1)*d_head are H[h],
    so that merge_heads(split_heads(X, n_heads)) equals X.
    """
    raise NotImplementedError("merge_heads is not written yet")


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    """n_heads attention heads side by side, mixed by Wo.

    X: (n, d_model); Wq, Wk, Wv, Wo: (d_model, d_model); n_heads divides d_model.
    Q = split_heads(X @ Wq, n_heads), and likewise K and V: each (n_heads, n, d_head).
    Head h computes A[h] = softmax(Q[h] K[h]^T / sqrt(d_head)) and A[h] @ V[h].
    mask: None, or one bool array (n, n) shared by every head; mask[i, j] == False
        means token i may not attend to token j (its weight is exactly 0); a row with
        no True gives nan weights in that row of every head.
    Returns (out, A): out = merge_heads(A @ V) @ Wo, shape (n, d_model); A, shape
    (n_heads, n, n), holds every head's weights, each row a probability distribution.
    """
    raise NotImplementedError("multi_head_attention is not written yet")
