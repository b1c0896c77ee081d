"""
Correct head in a streaming ("online softmax", FlashAttention-like) style.

softmax walks along the axis one entry at a time, keeping a running maximum and a
running sum rescaled whenever the maximum grows.  attention walks over blocks of
keys, keeping per-query running max / sum / weighted-value accumulators, and builds
A at the end from the final statistics.  -inf (masked) entries contribute exactly 0,
and a fully masked row ends with max = -inf and sum = 0, so it gives nan, as in the
lesson.
"""
# diagnosis: none
# style: streaming / online softmax (FlashAttention-style running max and sum over key blocks)
import numpy as np

_BLOCK = 2  # keys per block


def softmax(x, axis=-1):
    x = np.asarray(x)
    xs = np.moveaxis(x, axis, -1)
    m = np.full(xs.shape[:-1], -np.inf)
    s = np.zeros(xs.shape[:-1])
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(xs.shape[-1]):
            xj = xs[..., j]
            m_new = np.maximum(m, xj)
            dead = m_new == -np.inf
            alpha = np.where(dead, 0.0, np.exp(m - m_new))
            beta = np.where(dead, 0.0, np.exp(xj - m_new))
            s = s * alpha + beta
            m = m_new
        out = np.exp(xs - m[..., None]) / s[..., None]
    return np.moveaxis(out, -1, axis)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    inv_scale = 1.0 / np.sqrt(d_k)
    m = np.full(n_q, -np.inf)
    s = np.zeros(n_q)
    acc = np.zeros((n_q, V.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for start in range(0, n_k, _BLOCK):
            stop = min(start + _BLOCK, n_k)
            blk = (Q @ K[start:stop].T) * inv_scale
            if mask is not None:
                blk = np.where(mask[:, start:stop], blk, -np.inf)
            m_new = np.maximum(m, blk.max(axis=1))
            dead = m_new == -np.inf
            alpha = np.where(dead, 0.0, np.exp(m - m_new))
            p = np.where(dead[:, None], 0.0, np.exp(blk - m_new[:, None]))
            s = s * alpha + p.sum(axis=1)
            acc = acc * alpha[:, None] + p @ V[start:stop]
            m = m_new
        out = acc / s[:, None]
        scores = (Q @ K.T) * inv_scale
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = np.exp(scores - m[:, None]) / s[:, None]
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    idx = np.arange(n)
    return idx[:, None] >= idx[None, :]
