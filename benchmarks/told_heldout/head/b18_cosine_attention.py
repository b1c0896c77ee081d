# diagnosis: causal_mask_inverted
# mistake: attention: it L2-normalises the rows of Q and K before the dot product (cosine-similarity attention), so the scores are cosines, not dot products.
# mistake: causal_mask: it returns np.triu(..., k=1), True on the positions to hide.
# uncatalogued: 1
# style: cosine-similarity tutorial ("attention is just similarity search")
import numpy as np


def _l2_normalize(x, eps=1e-12):
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + eps)


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # similarity = cosine between query and key
    q = _l2_normalize(Q)
    k = _l2_normalize(K)
    sim = q @ k.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        sim = np.where(mask, sim, -np.inf)
    A = softmax(sim, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    # True = masked out
    return np.triu(np.ones((n, n), dtype=bool), k=1)
