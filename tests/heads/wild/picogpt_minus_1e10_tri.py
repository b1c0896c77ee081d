"""GPT-2-in-NumPy style head with three mistakes. softmax takes the max and the sum without
keepdims, so along the last axis of a 2-D array it subtracts and divides by the numbers of
the wrong rows (and a non-square array does not even broadcast). attention masks additively
with (1 - mask) * -1e10: a large finite penalty instead of -inf, so a fully masked row gets
finite weights instead of nan. causal_mask returns np.tri(n), a float 0/1 matrix, not bools."""
# must-fail: softmax.rows_sum_to_one, softmax.matches_reference, causal_mask.values, mask.fully_masked_row_nan, attention.worked_example
# diagnosis: softmax_no_keepdims, mask_large_negative, causal_mask_not_bool
# style: jaymody/picoGPT/gpt2.py

import numpy as np


def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis))
    return exp_x / np.sum(exp_x, axis=axis)


def attention(Q, K, V, mask=None):  # q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v) -> (n_q, d_v)
    if mask is None:
        mask = np.ones((Q.shape[0], K.shape[0]))
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + (1 - mask) * -1e10)
    return weights @ V, weights


def self_attention(X, Wq, Wk, Wv, mask=None):  # [n_seq, n_embd] -> [n_seq, d_v]
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    return attention(q, k, v, mask)


def causal_mask(n):  # [n_seq, n_seq], 1 where a token may look
    return np.tri(n)
