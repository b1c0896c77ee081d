# diagnosis: split_heads_tokens_first, merge_heads_no_transpose
# style: terse one-liner helpers using len(X) and -1 in reshapes, batched swapaxes attention
# notes: split_heads_tokens_first: split_heads is X.reshape(len(X), n_heads, -1), returning (n, n_heads, d_head) with no transpose
# notes: merge_heads_no_transpose: merge_heads is H.reshape(-1, n_heads * d_head) straight from (n_heads, n, d_head), no transpose

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads): return X.reshape(len(X), n_heads, -1)


def merge_heads(H): return H.reshape(-1, H.shape[0] * H.shape[2])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = [split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv)]
    S = Q @ K.swapaxes(-1, -2) / np.sqrt(Q.shape[-1])
    A = softmax(np.where(True if mask is None else mask, S, -np.inf))
    return merge_heads(A @ V) @ Wo, A
