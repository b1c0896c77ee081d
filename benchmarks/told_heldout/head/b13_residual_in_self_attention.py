# diagnosis: causal_mask_additive
# mistake: self_attention: it adds the residual X to the output (out + X), which changes out and raises when d_v != d_model.
# mistake: causal_mask: it returns an additive mask (0 on and below the diagonal, -inf above) instead of a bool mask.
# uncatalogued: 1
# style: transformer-block tutorial that folds the residual connection into the attention function
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    out, A = attention(X @ Wq, X @ Wk, X @ Wv, mask)
    # residual connection: x = x + attn(x)
    return X + out, A


def causal_mask(n):
    m = np.zeros((n, n))
    m[np.triu_indices(n, k=1)] = -np.inf
    return m
