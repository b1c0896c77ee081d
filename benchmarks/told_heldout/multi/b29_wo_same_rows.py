# diagnosis: none
# mistake: multi_head_attention: it projects every head's output with the same first d_head rows of Wo (Wo[:d_head]) instead of that head's rows Wo[h*d_head:(h+1)*d_head], so with two or more heads the rest of Wo is never used.
# uncatalogued: 1
# style: half-finished per-head output projection with a TODO, loop over heads
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
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    heads = A @ V
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        # TODO: slice Wo per head (merge_heads(heads) @ Wo should be the same)
        out += heads[h] @ Wo[:d_head]
    return out, A
