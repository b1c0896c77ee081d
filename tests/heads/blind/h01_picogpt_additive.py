"""
picoGPT-style head that speaks "additive mask" everywhere.

What is wrong:
- softmax accepts `axis` but never uses it: the max and the sum are always taken
  over the last axis, so softmax(x, axis=0) (or axis=1 of a 3-D array) normalises
  the wrong axis.
- attention adds the mask to the scores (x + mask), the way picoGPT adds its
  additive causal mask.  The lesson's mask is boolean: True becomes +1 on the keys a
  query may see, False becomes +0, so nothing is ever blocked.
- causal_mask returns picoGPT's additive mask, (1 - tri(n)) * -1e10: 0 where a token
  may attend and -1e10 elsewhere, floats instead of a boolean array that is True
  where j <= i.
self_attention itself is fine.
"""
# diagnosis: softmax_ignores_axis, mask_added_not_filled, causal_mask_additive
# style: picoGPT / GPT-2-in-numpy (lowercase q/k/v, shape comments, additive -1e10 causal mask)
import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):  # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] -> [n_q, d_v]
    q, k, v = Q, K, V
    x = q @ k.T / np.sqrt(q.shape[-1])  # [n_q, n_k]
    if mask is not None:
        x = x + mask
    w = softmax(x)
    return w @ v, w


def self_attention(X, Wq, Wk, Wv, mask=None):  # [n_seq, n_embd] -> [n_seq, d_v]
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    return attention(q, k, v, mask=mask)


def causal_mask(n):
    return (1 - np.tri(n, dtype=np.float64)) * -1e10
