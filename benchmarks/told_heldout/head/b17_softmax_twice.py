# diagnosis: missing_scale
# mistake: attention: the scores are never divided by sqrt(d_k).
# mistake: self_attention: it passes the weights returned by attention through softmax a second time "to make sure rows sum to 1", which flattens them and gives masked keys weight again.
# uncatalogued: 1
# style: belt-and-braces student who renormalises everything twice
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    out, A = attention(X @ Wq, X @ Wk, X @ Wv, mask)
    A = softmax(A, axis=-1)   # make sure the rows are probabilities
    return out, A


def causal_mask(n):
    return np.tril(np.full((n, n), True))
