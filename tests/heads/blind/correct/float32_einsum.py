"""
Correct head from a mixed-precision codebase: einsum everywhere, computing in the
inputs' own float precision (float32 stays float32, float64 stays float64; integer
inputs are promoted to float64).  Never downcasts float64 input.

Masks are applied with np.where(mask, s, -inf) before the stable softmax; a fully
masked row gives nan, as in the lesson.
"""
# diagnosis: none
# style: float32-aware einsum code (dtype promotion with np.result_type, einsum for every product)
import numpy as np


def _ftype(*arrays):
    return np.result_type(np.float32, *[np.asarray(a).dtype for a in arrays])


def softmax(x, axis=-1):
    x = np.asarray(x)
    x = x.astype(_ftype(x), copy=False)
    z = x - np.max(x, axis=axis, keepdims=True)
    ez = np.exp(z)
    return ez / np.sum(ez, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    dt = _ftype(Q, K, V)
    Q, K, V = (np.asarray(a, dtype=dt) for a in (Q, K, V))
    scale = dt.type(1.0) / np.sqrt(dt.type(Q.shape[-1]))
    s = np.einsum("id,jd->ij", Q, K) * scale
    if mask is not None:
        s = np.where(mask, s, dt.type(-np.inf))
    A = softmax(s, axis=-1)
    return np.einsum("ij,jv->iv", A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    dt = _ftype(X, Wq, Wk, Wv)
    X = np.asarray(X, dtype=dt)
    Q = np.einsum("nm,mk->nk", X, np.asarray(Wq, dtype=dt))
    K = np.einsum("nm,mk->nk", X, np.asarray(Wk, dtype=dt))
    V = np.einsum("nm,mv->nv", X, np.asarray(Wv, dtype=dt))
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.einsum("i,j->ij", np.ones(n), np.ones(n)).cumsum(axis=1) <= np.arange(1, n + 1)[:, None]
