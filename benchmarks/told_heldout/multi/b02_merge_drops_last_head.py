# diagnosis: mha_missing_scale
# mistake: merge_heads: it concatenates heads range(n_heads - 1), so the last head's columns are dropped.
# mistake: multi_head_attention: it never divides the scores by sqrt(d_head).
# uncatalogued: 1
# style: student loops with an off-by-one range, short variable names
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return np.stack([X[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def merge_heads(H):
    n_heads = H.shape[0]
    cols = []
    for h in range(n_heads - 1):
        cols.append(H[h])
    if not cols:
        return H[0]
    return np.concatenate(cols, axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    s = Q @ K.transpose(0, 2, 1)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    A = softmax(s)
    out = merge_heads(A @ V) @ Wo
    return out, A
