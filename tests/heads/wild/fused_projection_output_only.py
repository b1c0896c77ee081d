"""GPT-2-in-NumPy style: attention returns only softmax(...) @ v, not the weights.
self_attention stacks Wq, Wk, Wv into one projection, as GPT-2's c_attn, and splits the
result into three equal parts with np.split(x, 3, axis=-1): right only when d_k == d_v,
a wrong split or an error otherwise."""
# must-fail: attention.worked_example, attention.shapes, attention.matches_reference
# diagnosis: weights_not_returned, self_attention_equal_split
# style: jaymody/picoGPT/gpt2.py

import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def attention(q, k, v, mask=None):  # q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v) -> (n_q, d_v)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores) @ v


def self_attention(x, w_q, w_k, w_v, mask=None):  # [n_seq, n_embd] -> [n_seq, d_v]
    # one fused projection for q, k and v
    x = x @ np.concatenate([w_q, w_k, w_v], axis=-1)  # [n_seq, n_embd] -> [n_seq, 2*d_k + d_v]
    # cut it into three
    q, k, v = np.split(x, 3, axis=-1)
    return attention(q, k, v, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
