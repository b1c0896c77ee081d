"""multi_head_attention forgets Wo, and turns nan into 0 in what it returns: the unmasked probes alone prove the
missing Wo, though no known step explains the fully masked rows."""
# must-fail: multi_head_attention.output_projection, multi_head_attention.fully_masked_row_nan
# diagnosis: mha_no_output_projection

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    heads, A = attention(Q, K, V, mask)
    return np.nan_to_num(merge_heads(heads)), A
