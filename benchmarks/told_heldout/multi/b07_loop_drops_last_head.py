# diagnosis: none
# mistake: multi_head_attention: its loop over heads runs over range(n_heads - 1), so the last head is never computed: A has n_heads - 1 heads and that head's columns of the merged output stay zero.
# uncatalogued: 1
# style: per-head loop with a preallocated output, lesson's attention reused as a helper
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n = X.shape[0]
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    heads = np.zeros_like(Q)
    weights = []
    for h in range(n_heads - 1):
        heads[h], A_h = attention(Q[h], K[h], V[h], mask)
        weights.append(A_h)
    A = np.array(weights) if weights else np.zeros((0, n, n))
    return merge_heads(heads) @ Wo, A
