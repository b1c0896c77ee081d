# diagnosis: mha_mask_zero_fill
# style: np.matmul / np.swapaxes / np.dot code with a small lambda for the projections
# notes: mha_mask_zero_fill: multi_head_attention does scores = scores * mask, so blocked scores become 0 (still attended) instead of -inf

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.swapaxes(X.reshape(X.shape[0], n_heads, -1), 0, 1)


def merge_heads(H):
    return np.swapaxes(H, 0, 1).reshape(H.shape[1], H.shape[0] * H.shape[2])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    heads = lambda W: split_heads(np.dot(X, W), n_heads)
    Q, K, V = heads(Wq), heads(Wk), heads(Wv)
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores * mask  # zero out the positions a token may not see
    A = softmax(scores, axis=-1)
    out = np.dot(merge_heads(np.matmul(A, V)), Wo)
    return out, A
