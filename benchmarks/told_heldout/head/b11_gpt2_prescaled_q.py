# diagnosis: keys_reshaped
# mistake: attention: it reshapes K to (d_k, n_k) instead of transposing it, so the columns are not the keys.
# mistake: self_attention: it pre-multiplies the queries by 1/sqrt(d_model) (GPT-2 style q = q * scale) before calling attention, which divides by sqrt(d_k) again.
# uncatalogued: 1
# style: GPT-2 port with the query pre-scaling of the reference implementation
import math

import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    x = np.exp(x)
    return x / np.sum(x, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    n_k, d_k = K.shape
    w = np.matmul(Q, K.reshape(d_k, n_k))
    w = w / math.sqrt(d_k)
    if mask is not None:
        w = np.where(mask, w, -np.inf)
    w = softmax(w, axis=-1)
    a = np.matmul(w, V)
    return a, w


def self_attention(X, Wq, Wk, Wv, mask=None):
    n_embd = X.shape[-1]
    q = X @ Wq
    k = X @ Wk
    v = X @ Wv
    q = q * (1.0 / math.sqrt(n_embd))   # scale_attn_weights
    return attention(q, k, v, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)).reshape(n, n)
