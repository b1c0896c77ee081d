# diagnosis: none
# uncatalogued: 0
# style: loop over heads with np.split and the lesson's attention as a helper
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
    return np.stack(np.split(X, n_heads, axis=1), axis=0)


def merge_heads(H):
    return np.concatenate([H[h] for h in range(H.shape[0])], axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    outs, weights = [], []
    for h in range(n_heads):
        o, a = attention(Q[h], K[h], V[h], mask)
        outs.append(o)
        weights.append(a)
    out = merge_heads(np.stack(outs)) @ Wo
    return out, np.stack(weights)
