# diagnosis: merge_heads_no_transpose
# mistake: merge_heads: it reshapes H straight to (n, n_heads * d_head) without a transpose.
# mistake: multi_head_attention: it computes the projections, scores and weights in float16, which keeps only about three significant digits, so the weights and output are slightly off (and scores above 65504 overflow).
# uncatalogued: 1
# style: half-precision inference port (model.half()), batched matmul
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
    return H.reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    half = np.float16
    Xh = X.astype(half)
    Q = split_heads(Xh @ Wq.astype(half), n_heads)
    K = split_heads(Xh @ Wk.astype(half), n_heads)
    V = split_heads(Xh @ Wv.astype(half), n_heads)
    scores = (Q @ K.transpose(0, 2, 1)) / half(np.sqrt(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, half(-np.inf))
    A = softmax(scores, axis=-1)
    out = merge_heads(A @ V).astype(np.float64) @ Wo
    return out, A.astype(np.float64)
