"""attention builds each output row in a loop and then returns (weights, output), the pair in the wrong order."""
# must-fail: attention.worked_example, attention.shapes, attention.matches_reference
# diagnosis: returns_swapped

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Returns: weights (n_q, n_k), output (n_q, d_v)."""
    n_q = Q.shape[0]
    d_k = Q.shape[1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    output = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        output[i] = weights[i] @ V
    return weights, output


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
