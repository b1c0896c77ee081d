# diagnosis: none
# mistake: self_attention: it adds sinusoidal positional encodings to X before projecting, so Q, K, V are not X Wq, X Wk, X Wv (and the unmasked head is no longer permutation-equivariant).
# uncatalogued: 1
# style: batch-capable "Attention Is All You Need" tutorial code (leading axes, swapaxes, sinusoidal PE)
import numpy as np


def positional_encoding(n, d_model):
    pos = np.arange(n)[:, None]
    i = np.arange(d_model)[None, :]
    angle = pos / np.power(10000, (2 * (i // 2)) / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(angle[:, 0::2])
    pe[:, 1::2] = np.cos(angle[:, 1::2])
    return pe


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Works for (n, d) or (..., n, d)."""
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    n, d_model = X.shape[-2], X.shape[-1]
    X = X + positional_encoding(n, d_model)      # inject order information
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
