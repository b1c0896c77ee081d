"""attention copied from code written for (batch, heads, n, d) arrays: it unpacks four axes and uses einsum over them, so every 2-D call raises ValueError; given a batch of one and one head it is the lesson's."""
# must-fail: attention.worked_example, attention.shapes
# diagnosis: attention_needs_batch_axis
# told: (batch, heads, n, d) arrays | Q[None, None]

import numpy as np


def softmax(x, axis=-1):
    z = x - np.max(x, axis=axis, keepdims=True)
    num = np.exp(z)
    return num / np.sum(num, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    batch, heads, seq, d_head = Q.shape
    logits = np.einsum("bhqd,bhkd->bhqk", Q, K) / np.sqrt(d_head)
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    weights = softmax(logits, axis=-1)
    return np.einsum("bhqk,bhkd->bhqd", weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
