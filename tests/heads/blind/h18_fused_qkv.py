"""
Head with a fused QKV projection (GPT-2's c_attn) and a renamed variable.

What is wrong:
- attention builds the masked scores in a new variable (scores) but then calls
  softmax on the unmasked logits, so the mask is never applied.
- attention multiplies the logits by sqrt(d_k) instead of dividing by it.
- self_attention joins Wq, Wk, Wv into one matrix and splits X @ W into three equal
  parts: that is Q, K and V only when d_k == d_v, and raises or mixes them otherwise.
softmax and causal_mask are fine.
"""
# diagnosis: mask_ignored, self_attention_equal_split
# unnamed: attention multiplies the scores by sqrt(d_k) instead of dividing by it
# style: GPT-2 port with fused c_attn projection and np.split, "logits" vs "scores" naming
import numpy as np


def softmax(x, axis=-1):
    z = x - np.max(x, axis=axis, keepdims=True)
    return np.exp(z) / np.sum(np.exp(z), axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    logits = (Q @ K.T) * np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, logits, -np.inf)
    else:
        scores = logits
    A = softmax(logits, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    W_qkv = np.concatenate([Wq, Wk, Wv], axis=1)  # one fused projection, like c_attn
    Q, K, V = np.split(X @ W_qkv, 3, axis=-1)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)
