"""Work in progress: softmax with one global shift, attention not started.

Finished: softmax subtracts the single maximum of the whole array (x.max() with no axis)
instead of each row's max; the exp and the per-axis division are right;
causal_mask, correct (index comparison with np.arange, bool).
Unfinished: attention raises NotImplementedError("TODO"); self_attention returns correctly
shaped zeros as a placeholder (no projections, no attention).
"""
# unfinished: attention, self_attention
# diagnosis: softmax_global_max
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max()          # shift for stability
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    raise NotImplementedError("TODO")


def self_attention(X, Wq, Wk, Wv, mask=None):
    n = X.shape[0]
    return np.zeros((n, Wv.shape[1])), np.zeros((n, n))


def causal_mask(n):
    i = np.arange(n)
    return i[:, None] >= i[None, :]
