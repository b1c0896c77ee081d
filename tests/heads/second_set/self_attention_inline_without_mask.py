"""self_attention re-implements the head inline with np.einsum and never applies its mask argument (attention itself handles masks correctly)."""
# must-fail: self_attention.mask_passed
# diagnosis: self_attention_drops_mask

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.einsum("qd,kd->qk", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return np.einsum("qk,kv->qv", A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    q = np.einsum("nm,md->nd", X, Wq)
    k = np.einsum("nm,md->nd", X, Wk)
    v = np.einsum("nm,mv->nv", X, Wv)
    a = softmax(np.einsum("qd,kd->qk", q, k) / np.sqrt(q.shape[-1]), axis=-1)
    return np.einsum("qk,kv->qv", a, v), a


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
