# diagnosis: mha_softmax_no_keepdims
# style: student rewrites the given softmax in np.* function style and loops over heads with enumerate
# notes: mha_softmax_no_keepdims: the rewritten softmax (used by multi_head_attention on each (n, n) head) subtracts np.max(x, axis=axis) without keepdims, so column j is shifted by row j's max

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis))
    return e / np.sum(e, axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    return np.stack([X[:, i * d_head:(i + 1) * d_head] for i in range(n_heads)])


def merge_heads(H):
    return np.hstack(list(H))


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]

    A = np.empty((n_heads, X.shape[0], X.shape[0]))
    Z = np.empty_like(Q)
    for i, (q, k, v) in enumerate(zip(Q, K, V)):
        scores = q @ k.T / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A[i] = softmax(scores, axis=-1)
        Z[i] = A[i] @ v
    return merge_heads(Z) @ Wo, A
