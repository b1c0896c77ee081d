# diagnosis: mha_mask_ignored
# style: the lesson's attention(Q, K, V, mask=None) helper called once per head in a loop, np.split / np.concatenate helpers
# notes: mha_mask_ignored: multi_head_attention calls attention(Q[h], K[h], V[h]) without passing mask, so the mask never reaches any head

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """The lesson's head: softmax(Q K^T / sqrt(d_k)) V, with mask False -> weight 0."""
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def split_heads(X, n_heads):
    return np.stack(np.split(X, n_heads, axis=1), axis=0)


def merge_heads(H):
    return np.concatenate([H[h] for h in range(H.shape[0])], axis=-1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)

    outputs, weights = [], []
    for h in range(n_heads):
        o, a = attention(Q[h], K[h], V[h])
        outputs.append(o)
        weights.append(a)

    out = merge_heads(np.stack(outputs)) @ Wo
    return out, np.stack(weights)
