# diagnosis: mha_mutates_inputs
# style: "fold the 1/sqrt(d_head) into the query projection" optimisation seen in inference code, with an unscaled attention helper
# notes: mha_mutates_inputs: multi_head_attention does Wq /= np.sqrt(d_head) in place, changing the caller's Wq (and Wk/Wv if they are the same array)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def unscaled_attention(Q, K, V, mask=None):
    """Attention whose queries already carry the 1/sqrt(d_head) factor."""
    scores = Q @ K.transpose(0, 2, 1)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    d_model = X.shape[-1]
    d_head = d_model // n_heads
    # Fold 1/sqrt(d_head) into the query projection once, instead of scaling every score matrix.
    Wq /= np.sqrt(d_head)
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    heads, A = unscaled_attention(Q, K, V, mask)
    return merge_heads(heads) @ Wo, A
