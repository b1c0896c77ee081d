# diagnosis: none
# mistake: multi_head_attention: it masks by multiplying exp(scores - rowmax) by the mask, with the row max taken over masked keys too, so when a masked key's score dominates the row the kept weights underflow to 0/0 = nan.
# uncatalogued: 1
# style: tutorial that masks the exponentials with a 0/1 float mask, batched
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


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    if mask is None:
        A = softmax(scores, axis=-1)
    else:
        m = mask.astype(float)                       # 1 = keep, 0 = drop
        e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * m
        A = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ Wo, A
