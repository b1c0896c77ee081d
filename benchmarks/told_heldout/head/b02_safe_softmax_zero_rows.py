# diagnosis: mask_large_negative, causal_mask_not_bool
# mistake: softmax: it replaces a non-finite row max by 0 ("safe softmax"), so a row that is entirely -inf comes back as zeros instead of nan.
# mistake: attention: masked scores are set to -1e9 instead of -inf, so a fully masked row gets uniform weights instead of nan.
# mistake: causal_mask: it returns a float 0/1 matrix (np.tril of np.ones) instead of a bool array.
# uncatalogued: 1
# style: flash-attention inspired "safe softmax" with guards against nan, written for a course lab
import numpy as np

NEG_INF = -1e9  # large negative instead of -inf to keep things finite


def softmax(x, axis=-1):
    """Numerically safe softmax.

    Rows whose max is -inf (everything masked) would give nan; we guard the
    max so that exp(-inf - 0) = 0 and the row simply becomes zeros.
    """
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e, dtype=float), where=s > 0)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, NEG_INF)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n)))
