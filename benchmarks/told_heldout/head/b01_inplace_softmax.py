# diagnosis: none
# mistake: softmax: it subtracts the max, exponentiates and divides in place (x -= ..., np.exp(x, out=x), x /= ...), so the caller's array is overwritten with the probabilities.
# uncatalogued: 1
# style: memory-conscious student who avoids temporaries with in-place NumPy ops and out= arguments
"""Attention head, week 3 lab.

I tried to keep allocations down: softmax works in place so the (n, n) score
matrix is not copied three times.
"""

import numpy as np


def softmax(x, axis=-1):
    # in-place to avoid extra (n, n) temporaries
    x -= np.max(x, axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= np.sum(x, axis=axis, keepdims=True)
    return x


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T
    scores /= np.sqrt(d_k)          # scores is a fresh array, safe to modify
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = A @ V
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


if __name__ == "__main__":
    Q = K = np.array([[1., 0.], [0., 1.], [1., 1.]])
    V = np.array([[10., 0.], [0., 10.], [5., 5.]])
    out, A = attention(Q, K, V)
    print(np.round(A, 4))
    print(np.round(out, 3))
