"""
Tutorial head written with explicit Python loops "so you can see every number".

What is wrong:
- attention's score loop uses K[i] (the query's own index) instead of K[j]: every
  score in row i is Q[i] . K[i], so each query spreads its weight evenly over the
  keys it may see (and it raises when there are more queries than keys).
- attention returns only the output, not the pair (out, A).
- causal_mask sets m[i, :i + 2] = True, one step too far: each token also sees the
  next token.
The scores array comes from np.empty but every entry is written before it is read,
so that is harmless.  softmax and self_attention are fine.
"""
# diagnosis: scores_wrong_key_index, weights_not_returned, causal_mask_allows_next
# style: explicit-loop tutorial (nested for loops, np.empty buffers, np.dot on rows)
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    z = x - x.max(axis=axis, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    scores = np.empty((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            if mask is not None and not mask[i, j]:
                scores[i, j] = -np.inf
            else:
                scores[i, j] = np.dot(Q[i], K[i]) / np.sqrt(d_k)
    weights = softmax(scores, axis=-1)
    output = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            output[i] += weights[i, j] * V[j]
    return output


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.dot(X, Wq)
    K = np.dot(X, Wk)
    V = np.dot(X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        m[i, :i + 2] = True
    return m
