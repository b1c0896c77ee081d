# diagnosis: mask_zero_fill
# mistake: attention: masked scores are set to 0 instead of -inf.
# mistake: self_attention: it centres X in place (X -= X.mean(axis=0)) before projecting, which changes both the caller's X and the output.
# uncatalogued: 1
# style: data-science habit of standardising features first, Kaggle-notebook comments
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, 0)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    # center features first (always a good idea!)
    X -= X.mean(axis=0)
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
