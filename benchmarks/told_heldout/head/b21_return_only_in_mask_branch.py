# diagnosis: softmax_global_max, causal_mask_allows_next
# mistake: softmax: it subtracts one maximum for the whole array instead of each row's own.
# mistake: attention: its return statement sits inside the `if mask is not None:` block, so with mask=None it returns None.
# mistake: causal_mask: it uses np.tril(..., k=1), so each token also sees the next one.
# uncatalogued: 1
# style: student who reindented a block in the notebook and lost the final return's indentation level
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    A = softmax(scores, axis=-1)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        A = softmax(scores, axis=-1)
        return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=1)
