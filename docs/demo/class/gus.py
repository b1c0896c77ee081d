"""One attention head in NumPy.

Implement the four functions below, following the lesson. Keep their names and
signatures: the grader calls them exactly as written here.

Check your work at any time with:

    grader check attention.py
"""

import numpy as np


def softmax(x, axis=-1):
    """Turn scores into probabilities along ``axis``.

    x: an array of any shape (for example (n, n) attention scores).
    Returns an array of the same shape whose entries along ``axis`` are
    non-negative and sum to 1. Must not overflow for large scores.
    """
    raise NotImplementedError("softmax is not written yet")


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention: softmax(Q K^T / sqrt(d_k)) V.

    Q: (n_q, d_k) queries; K: (n_k, d_k) keys; V: (n_k, d_v) values.
    mask: None, or a bool array (n_q, n_k); mask[i, j] == False means query i
        may not attend to key j (its weight is exactly 0).
    Returns (out, A): out is (n_q, d_v); A is the (n_q, n_k) weight matrix,
    each row a probability distribution.
    """
    raise NotImplementedError("attention is not written yet")


def self_attention(X, Wq, Wk, Wv, mask=None):
    """Self-attention of a sequence X with itself.

    X: (n, d_model); Wq, Wk: (d_model, d_k); Wv: (d_model, d_v).
    Returns (out, A) as attention() does, with Q = X Wq, K = X Wk, V = X Wv.
    """
    raise NotImplementedError("self_attention is not written yet")


def causal_mask(n):
    """A bool (n, n) mask where token i may attend to tokens j <= i."""
    raise NotImplementedError("causal_mask is not written yet")
