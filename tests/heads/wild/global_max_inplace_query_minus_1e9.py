"""softmax subtracts the largest logit of the whole array (np.max(x), no axis), so a row far
below the largest one underflows to 0/0. attention scales the queries in place
(Q /= np.sqrt(d_k)), changing the caller's array, and masks with
np.where(mask, scores, -1e9), a finite fill, so a fully masked row is not nan."""
# must-fail: softmax.large_logits, attention.inputs_unchanged
# diagnosis: softmax_global_max, mutates_inputs, mask_large_negative
# style: https://aiml-notes.pages.dev/tutorials/08---Attention-Mechanism-from-Scratch

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max())
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """
    Q: (seq_len_q, d_k)
    K: (seq_len_k, d_k)
    V: (seq_len_k, d_v)
    Returns: (seq_len_q, d_v), attention_weights (seq_len_q, seq_len_k)
    """
    d_k = Q.shape[-1]
    Q /= np.sqrt(d_k)  # scale the queries once instead of the whole score matrix
    scores = Q @ K.T  # (seq_len_q, seq_len_k)

    if mask is not None:
        scores = np.where(mask, scores, -1e9)

    weights = softmax(scores)  # (seq_len_q, seq_len_k)
    output = weights @ V  # (seq_len_q, d_v)
    return output, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
