# diagnosis: none
# mistake: multi_head_attention: it splits X first and projects head h's slice of X with only the diagonal block Wq[h-block, h-block] (likewise Wk, Wv), so each head ignores the other columns of X and the off-diagonal blocks of the weights.
# uncatalogued: 1
# style: "split first, then project each head" misreading, per-head loop with slices
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Xh = split_heads(X, n_heads)               # each head gets its own slice of X
    d_head = Xh.shape[-1]
    heads, weights = [], []
    for h in range(n_heads):
        b = slice(h * d_head, (h + 1) * d_head)
        q = Xh[h] @ Wq[b, b]
        k = Xh[h] @ Wk[b, b]
        v = Xh[h] @ Wv[b, b]
        s = q @ k.T / np.sqrt(d_head)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        a = softmax(s)
        heads.append(a @ v)
        weights.append(a)
    return merge_heads(np.array(heads)) @ Wo, np.array(weights)
