"""Loop-style attention fills score[i][j] with dot(K[i], K[j]): keys against keys, never the queries; identical on the lesson's example, where Q == K."""
# must-fail: attention.shapes, attention.matches_reference, self_attention.projections
# diagnosis: none

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n = K.shape[0]
    d_k = Q.shape[1]
    scores = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            scores[i][j] = np.dot(K[i], K[j]) / np.sqrt(d_k)
    if mask is not None:
        for i in range(n):
            for j in range(n):
                if not mask[i][j]:
                    scores[i][j] = -np.inf
    weights = softmax(scores, axis=-1)
    output = np.zeros((n, V.shape[1]))
    for i in range(n):
        for j in range(n):
            output[i] += weights[i][j] * V[j]
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
