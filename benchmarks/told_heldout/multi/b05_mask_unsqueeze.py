# diagnosis: none
# mistake: multi_head_attention: it broadcasts the mask as mask[:, None], shape (n, 1, n), against the (n_heads, n, n) scores, so with one head A becomes (n, n, n), with n_heads == n head h is masked by row h of the mask only, and otherwise it raises.
# uncatalogued: 1
# style: PyTorch port that unsqueezes the mask for the heads axis, batched matmul
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
        # mask.unsqueeze(1): broadcast over the heads
        scores = np.where(mask[:, None], scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = merge_heads(A @ V) @ Wo
    return out, A
