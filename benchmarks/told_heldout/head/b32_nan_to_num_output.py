# diagnosis: softmax_no_max_shift
# mistake: softmax: it exponentiates without subtracting the row max.
# mistake: attention: it passes the output through np.nan_to_num, so a fully masked row's output is 0 instead of nan (while its A row stays nan).
# uncatalogued: 1
# style: Kaggle notebook that cleans nan from every result
import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x)
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=-1, keepdims=True)
    out = np.nan_to_num(A @ V)
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
