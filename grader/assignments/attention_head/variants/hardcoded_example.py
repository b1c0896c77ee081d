"""attention returns the lesson's worked-example answer when given exactly that input, and uniform weights for anything else."""
# must-fail: attention.scaling, attention.matches_reference, self_attention.projections
# diagnosis: hardcoded_example

import numpy as np

EXAMPLE_QK = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
EXAMPLE_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
EXAMPLE_A = np.array([[0.4011, 0.1978, 0.4011], [0.1978, 0.4011, 0.4011], [0.2483, 0.2483, 0.5035]])
EXAMPLE_OUT = np.array([[6.02, 3.98], [3.98, 6.02], [5.00, 5.00]])


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    if np.array_equal(Q, EXAMPLE_QK) and np.array_equal(K, EXAMPLE_QK) and np.array_equal(V, EXAMPLE_V):
        return EXAMPLE_OUT.copy(), EXAMPLE_A.copy()
    A = np.ones((Q.shape[0], K.shape[0])) / K.shape[0]  # "close enough": uniform weights
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))  # token i may see j <= i
