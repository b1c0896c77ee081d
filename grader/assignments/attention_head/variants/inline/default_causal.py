"""self_attention computes attention itself, in own_attention, where attention treats mask=None as a causal mask instead of attending everywhere; the file's attention is the lesson's."""
# must-fail: self_attention.projections, self_attention.permutation_equivariance, self_attention.large_logits
# diagnosis: self_attention_default_causal

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def own_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (n_q, n_k)
    if mask is None:
        mask = np.tril(np.ones(scores.shape, dtype=bool))  # assume causal by default
    scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0
    A = softmax(scores, axis=-1)  # rows sum to 1
    return A @ V, A  # (n_q, d_v), (n_q, n_k)


def _unused_self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))  # token i may see j <= i


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return own_attention(X @ Wq, X @ Wk, X @ Wv, mask)
