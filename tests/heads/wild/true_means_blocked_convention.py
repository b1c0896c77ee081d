"""Uses the convention of some tutorials in which True marks a position to HIDE, consistently:
attention does np.where(mask, -np.inf, scores), so with the lesson's masks (True = may attend)
it hides exactly the allowed keys, and causal_mask returns np.triu(..., k=1), True above the
diagonal, the complement of the lesson's mask."""
# must-fail: mask.no_future_leakage, mask.first_token_self, mask.arbitrary, causal_mask.values
# diagnosis: mask_inverted, causal_mask_inverted
# style: https://www.ainiketan.in/papers/08-transformer-2017/sections/06-the-code/

import numpy as np


def softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)  # stability
    exp_x = np.exp(shifted)
    return exp_x / exp_x.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """mask: optional (n_q, n_k) boolean, True = mask out (decoder)."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    attn_weights = softmax(scores, axis=-1)
    return attn_weights @ V, attn_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    # True where a position lies in the future and must be hidden
    return np.triu(np.ones((n, n), dtype=bool), k=1)
