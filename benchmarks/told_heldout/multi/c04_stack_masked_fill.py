# diagnosis: none
# uncatalogued: 0
# style: np.stack of column slices, masked_fill by boolean indexing on a fresh scores array
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    return np.stack([X[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def merge_heads(H):
    n_heads, n, d_head = H.shape
    out = np.empty((n, n_heads * d_head), dtype=H.dtype)
    for h in range(n_heads):
        out[:, h * d_head:(h + 1) * d_head] = H[h]
    return out


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        blocked = ~np.asarray(mask, dtype=bool)
        scores[:, blocked] = -np.inf       # masked_fill on every head at once
    A = softmax(scores, axis=-1)
    return merge_heads(A @ V) @ Wo, A
