# diagnosis: split_heads_interleaved
# mistake: split_heads: it reshapes to (n, d_head, n_heads), so head h gets every n_heads-th column.
# mistake: multi_head_attention: it passes the weights through np.nan_to_num, so a fully masked query gets 0 weights (and output 0) instead of nan.
# uncatalogued: 1
# style: defensive notebook code that scrubs nan "so the plots don't break"
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, d_head, n_heads).transpose(2, 0, 1)


def merge_heads(H):
    return np.concatenate(list(H), axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = np.nan_to_num(softmax(scores, axis=-1))
    out = merge_heads(A @ V) @ Wo
    return out, A
