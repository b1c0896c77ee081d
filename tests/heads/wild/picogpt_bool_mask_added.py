"""GPT-2-in-NumPy style: attention is one line, softmax(q @ k.T / sqrt(d_k) + mask) @ v, which
expects an additive mask; given the lesson's bool mask it adds True/False as 1.0/0.0 to the
scores, so nothing is masked and allowed keys get a +1 bonus. causal_mask accordingly returns
an additive float mask (0 on and below the diagonal, -1e10 above it) instead of bools."""
# must-fail: mask.no_future_leakage, mask.first_token_self, mask.arbitrary, causal_mask.values
# diagnosis: mask_added_not_filled, causal_mask_additive
# style: jaymody/picoGPT/gpt2.py

import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(q, k, v, mask=None):  # q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v) -> (n_q, d_v)
    if mask is None:
        mask = 0
    w = softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask)
    return w @ v, w


def self_attention(x, w_q, w_k, w_v, mask=None):  # [n_seq, n_embd] -> [n_seq, d_v]
    return attention(x @ w_q, x @ w_k, x @ w_v, mask)


def causal_mask(n):  # hide future inputs from being attended to
    return np.triu(np.full((n, n), -1e10), k=1)
