# diagnosis: none
# mistake: attention: it leaves a query unmasked when every key of its row is masked (to avoid nan), so that row gets ordinary unmasked weights instead of nan.
# uncatalogued: 1
# style: PyTorch-style nan guard copied from a padding-mask forum answer
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        # rows with no allowed key would produce nan: let them see everything
        has_key = mask.any(axis=-1, keepdims=True)
        safe_mask = mask | ~has_key
        scores = np.where(safe_mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
