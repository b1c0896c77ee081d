# diagnosis: none
# uncatalogued: 0
# style: log-sum-exp softmax and a masked_fill helper on a copy, PyTorch vocabulary
import numpy as np


def logsumexp(x, axis=-1, keepdims=True):
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        s = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return s if keepdims else np.squeeze(s, axis=axis)


def softmax(x, axis=-1):
    with np.errstate(invalid="ignore"):
        return np.exp(x - logsumexp(x, axis=axis))


def masked_fill(t, cond, value):
    out = np.array(t, dtype=float, copy=True)
    np.putmask(out, cond, value)
    return out


def attention(Q, K, V, mask=None):
    scores = np.matmul(Q, K.T) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = masked_fill(scores, ~np.asarray(mask, dtype=bool), float("-inf"))
    A = softmax(scores, axis=-1)
    return np.matmul(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    q = np.matmul(X, Wq)
    k = np.matmul(X, Wk)
    v = np.matmul(X, Wv)
    return attention(q, k, v, mask=mask)


def causal_mask(n):
    return ~np.triu(np.ones((n, n), dtype=bool), k=1)
