# diagnosis: split_heads_reshape_only, merge_heads_no_transpose, mha_missing_scale
# style: terse one-liner code (generator unpacking, conditional expression for the mask)
# notes: split_heads_reshape_only: split_heads is X.reshape(n_heads, n, -1) with no transpose
# notes: merge_heads_no_transpose: merge_heads is H.reshape(n, -1) with no transpose (it undoes the split exactly, so the round trip passes)
# notes: mha_missing_scale: multi_head_attention takes softmax of Q @ K^T with no 1/sqrt(d_head)

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def split_heads(X, n_heads): return X.reshape(n_heads, X.shape[0], -1)


def merge_heads(H): return H.reshape(H.shape[1], -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    S = Q @ K.transpose(0, 2, 1)
    A = softmax(S if mask is None else np.where(mask, S, -np.inf))
    return merge_heads(A @ V) @ Wo, A
