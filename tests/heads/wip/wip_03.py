"""Work in progress: the two small helpers are done, the attention functions are not.

Finished: softmax, correct (max shift with keepdims, normalises along the axis it is given);
causal_mask, correct (boolean comparison of index grids, True where j <= i).
Unfinished: attention and self_attention have an Ellipsis (`...`) body and return None.
"""
# unfinished: attention, self_attention
# diagnosis: none
import numpy as np


def softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    ez = np.exp(z)
    total = ez.sum(axis=axis, keepdims=True)
    return ez / total


def attention(Q, K, V, mask=None):
    ...


def self_attention(X, Wq, Wk, Wv, mask=None):
    ...


def causal_mask(n):
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    return rows >= cols
