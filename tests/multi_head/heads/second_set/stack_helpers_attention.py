# diagnosis: split_heads_interleaved, merge_heads_interleaved
# style: np.stack / slicing helpers plus a batched attention helper (the lesson's head applied to the stack)
# notes: split_heads_interleaved: split_heads stacks X[:, h::n_heads], so head h gets every n_heads-th column instead of a contiguous block
# notes: merge_heads_interleaved: merge_heads does H.transpose(1, 2, 0).reshape(n, -1), putting the heads' columns interleaved (it is the exact inverse of the split, so the round trip passes)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
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
    # every head takes its share of the columns
    return np.stack([X[:, h::n_heads] for h in range(n_heads)], axis=0)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 2, 0).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = [split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv)]
    heads, A = attention(Q, K, V, mask)
    return merge_heads(heads) @ Wo, A
