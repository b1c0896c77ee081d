"""
GPT-2-in-numpy style head; self_attention computes attention inline.

What is wrong:
- attention multiplies np.matmul(q, k) without transposing the keys: it raises
  unless d_k equals the number of keys, and is wrong even then.
- self_attention does not call attention; its inline code never divides the scores
  by sqrt(d_k) ...
- ... and masks additively with (1 - mask) * -1e10, a large negative number instead
  of -inf, so a fully masked row gets finite weights instead of nan.
softmax and causal_mask are fine.
"""
# diagnosis: keys_not_transposed, self_attention_missing_scale, self_attention_mask_large_negative
# style: GPT-2 / picoGPT numpy port (lowercase q, k, v, w; (1 - mask) * -1e10), self_attention inlined
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    ex = np.exp(x)
    return ex / np.sum(ex, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    q, k, v = Q, K, V
    w = np.matmul(q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        w = np.where(mask, w, -np.inf)
    w = softmax(w, axis=-1)
    return np.matmul(w, v), w


def self_attention(X, Wq, Wk, Wv, mask=None):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    w = q @ k.T
    if mask is not None:
        w = w + (1 - mask) * -1e10
    w = softmax(w, axis=-1)
    return w @ v, w


def causal_mask(n):
    return np.tri(n, dtype=bool)
