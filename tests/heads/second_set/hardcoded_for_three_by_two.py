"""attention returns the lesson's hand-computed answer for any 3 x 2 input and falls back to uniform weights (V's column means) otherwise."""
# must-fail: attention.scaling, attention.matches_reference, self_attention.projections
# diagnosis: hardcoded_example

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    if Q.shape == (3, 2) and K.shape == (3, 2) and V.shape == (3, 2):
        A = np.array([[0.4011, 0.1978, 0.4011],
                      [0.1978, 0.4011, 0.4011],
                      [0.2483, 0.2483, 0.5035]])
        out = np.array([[6.02, 3.98],
                        [3.98, 6.02],
                        [5.00, 5.00]])
        return out, A
    # TODO: general case
    A = np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
