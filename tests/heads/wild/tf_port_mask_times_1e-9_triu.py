"""A port of a TensorFlow chatbot's attention. softmax has no max shift. attention adds
mask * 1e-9 to the logits (the exponent's sign lost from -1e9), a tiny positive nudge, so the
mask has no effect. causal_mask uses np.triu, so token i "may see" tokens j >= i, the future."""
# must-fail: softmax.large_logits, mask.no_future_leakage, mask.first_token_self, mask.arbitrary, causal_mask.values
# diagnosis: softmax_no_max_shift, mask_ignored, causal_mask_upper
# style: cyobero/datascience/tensorflow/chatbot/scaled_dot_product_attention.py

import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)


def attention(query, key, value, mask=None):
    matmul_qk = np.matmul(query, key.T)

    depth = float(key.shape[-1])
    logits = matmul_qk / np.sqrt(depth)

    # add the mask to zero out the masked tokens
    if mask is not None:
        logits += mask * 1e-9

    attention_weights = softmax(logits, axis=-1)
    return np.matmul(attention_weights, value), attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
