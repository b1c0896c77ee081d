# diagnosis: mha_mask_one_head
# mistake: split_heads: it returns the Python list that np.split gives, not an (n_heads, n, d_head) array.
# mistake: multi_head_attention: it applies the mask only to head 0's scores, so the other heads still see the future.
# uncatalogued: 1
# style: loop over heads with np.split, one head at a time, comments from a course forum
"""Multi-head attention in NumPy."""

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    # np.split cuts the columns into n_heads equal blocks: head h = X[:, h*d:(h+1)*d]
    return np.split(X, n_heads, axis=1)


def merge_heads(H):
    return np.concatenate(list(H), axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    outs, weights = [], []
    for h in range(n_heads):
        d_head = Q[h].shape[-1]
        scores = Q[h] @ K[h].T / np.sqrt(d_head)
        if mask is not None and h == 0:
            scores = np.where(mask, scores, -np.inf)
        A_h = softmax(scores, axis=-1)
        outs.append(A_h @ V[h])
        weights.append(A_h)
    out = merge_heads(np.stack(outs)) @ Wo
    return out, np.stack(weights)
