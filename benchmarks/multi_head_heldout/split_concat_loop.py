# diagnosis: mha_mask_zero_fill
# style: loop over heads with np.split / np.stack / np.concatenate helpers and per-head np.where masking
# notes: mha_mask_zero_fill: multi_head_attention sets blocked scores to 0 with np.where(mask, S, 0) instead of -inf

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.stack(np.split(X, n_heads, axis=1))


def merge_heads(H):
    return np.concatenate(list(H), axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scale = np.sqrt(Q.shape[-1])

    weights, outputs = [], []
    for q, k, v in zip(Q, K, V):
        S = q @ k.T / scale
        if mask is not None:
            S = np.where(mask, S, 0)
        W = softmax(S)
        weights.append(W)
        outputs.append(W @ v)
    return merge_heads(np.stack(outputs)) @ Wo, np.stack(weights)
