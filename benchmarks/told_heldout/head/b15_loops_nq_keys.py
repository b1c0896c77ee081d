# diagnosis: softmax_ignores_axis
# mistake: softmax: it ignores its axis argument and always normalises the last axis.
# mistake: attention: its inner loop over keys runs over range(len(Q)) instead of range(len(K)), so with n_q < n_k the extra keys keep score 0 and with n_q > n_k it raises IndexError.
# uncatalogued: 1
# style: nested-loop course lab with row-by-row dot products
import numpy as np


def softmax(x, axis=-1):
    out = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return out / np.sum(out, axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[1]
    scores = np.zeros((Q.shape[0], K.shape[0]))
    for i in range(len(Q)):
        for j in range(len(Q)):
            scores[i, j] = np.dot(Q[i], K[j]) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
