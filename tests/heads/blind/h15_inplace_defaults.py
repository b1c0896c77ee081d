"""
"Efficient" head that scales the queries in place and defaults to causal.

What is wrong:
- softmax's default is axis=0, so softmax(x) with no axis normalises down the
  columns (it does use the axis it is given).
- attention divides Q in place (Q /= sqrt(d_k)), changing the caller's array.
- attention builds a causal mask when mask is None, so with no mask every query
  still cannot see later keys (and it raises when n_q != n_k).
self_attention and causal_mask are fine.  (attention passes axis=-1 explicitly, so
the softmax default does not affect it.)
"""
# diagnosis: softmax_wrong_axis, mutates_inputs, default_causal
# style: "optimised" student code (scale Q once in place, decoder-only causal default)
import numpy as np


def softmax(x, axis=0):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    Q /= np.sqrt(d_k)  # scale the (n, d_k) queries instead of the (n, n) scores
    scores = Q @ K.T
    if mask is None:
        mask = causal_mask(Q.shape[0])  # decoder: never look ahead
    scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
