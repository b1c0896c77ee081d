# diagnosis: self_attention_swapped_projections
# mistake: attention: it indexes the mask as mask[:, None] (a PyTorch unsqueeze habit), which broadcasts the (n_q, n_k) scores to (n_q, n_q, n_k), so A and out get a wrong extra axis.
# mistake: self_attention: it builds the queries with Wk and the keys with Wq.
# uncatalogued: 1
# style: batched PyTorch habits (unsqueeze the mask for the heads axis) carried into 2-D NumPy
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        mask = mask[:, None]            # (T, 1, T) like mask.unsqueeze(1)
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    K = X @ Wq
    Q = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
