# diagnosis: none
# mistake: multi_head_attention: its return statement is indented inside the `if mask is not None:` block, so with mask=None it returns None.
# uncatalogued: 1
# style: notebook cell edited in place, indentation slip, print debugging
import numpy as np

DEBUG = False


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    H = X.reshape(n, n_heads, d_head).transpose(1, 0, 2)
    if DEBUG:
        print("split:", X.shape, "->", H.shape)
    return H


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    A = softmax(scores, axis=-1)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        A = softmax(scores, axis=-1)
        if DEBUG:
            print("A rows:", A.sum(-1))
        out = merge_heads(A @ V) @ Wo
        return out, A
