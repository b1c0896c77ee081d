# diagnosis: mha_mask_after_softmax, mha_missing_scale
# style: a masked_softmax(scores, mask) helper in the style of d2l/AllenNLP utilities, batched matmul over heads
# notes: mha_mask_after_softmax: masked_softmax takes the softmax first and then zeroes the blocked weights with np.where(mask, weights, 0.0), without renormalising
# notes: mha_missing_scale: multi_head_attention computes np.matmul(Q, K.transpose(0, 2, 1)) with no 1/sqrt(d_head)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def masked_softmax(scores, mask=None):
    """Softmax over the last axis where masked-out (False) positions get weight 0."""
    weights = softmax(scores, axis=-1)
    if mask is None:
        return weights
    return np.where(mask, weights, 0.0)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return np.transpose(X.reshape(n, n_heads, d_model // n_heads), (1, 0, 2))


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return np.transpose(H, (1, 0, 2)).reshape(n, -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(np.matmul(X, Wq), n_heads)
    K = split_heads(np.matmul(X, Wk), n_heads)
    V = split_heads(np.matmul(X, Wv), n_heads)
    scores = np.matmul(Q, K.transpose(0, 2, 1))
    A = masked_softmax(scores, mask)
    out = np.matmul(merge_heads(np.matmul(A, V)), Wo)
    return out, A
