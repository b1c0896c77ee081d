# diagnosis: none
# style: Jay Alammar "Illustrated Transformer" loop: one W^Q_i, W^K_i, W^V_i per head (column slices of Wq, Wk, Wv), Z_i per head, concat, times W^O
# notes: correct: slices the weight columns per head instead of splitting X @ Wq (same numbers); 2-D softmax over axis=1, which is the key axis of an (n, n) score matrix

"""Multi-head attention the way The Illustrated Transformer draws it: each head i has its
own W^Q_i, W^K_i, W^V_i, produces its own Z_i; the Z_i are concatenated and multiplied
by W^O."""

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    heads = []
    for i in range(n_heads):
        heads.append(X[:, i * d_head:(i + 1) * d_head])
    return np.array(heads)


def merge_heads(H):
    return np.hstack([H[i] for i in range(H.shape[0])])


def self_attention_head(X, W_Q, W_K, W_V, mask=None):
    """One head: Z = softmax(Q K^T / sqrt(d_k)) V with Q = X W_Q, K = X W_K, V = X W_V."""
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    d_k = W_Q.shape[1]
    score = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        score = np.where(mask, score, -np.inf)
    weights = softmax(score, axis=1)  # (n, n): axis 1 runs over the keys
    return weights @ V, weights


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Z, attn = [], []
    for i in range(n_heads):
        cols = slice(i * d_k, (i + 1) * d_k)
        Z_i, A_i = self_attention_head(X, Wq[:, cols], Wk[:, cols], Wv[:, cols], mask)
        Z.append(Z_i)
        attn.append(A_i)
    Z = np.concatenate(Z, axis=1)  # (n, n_heads * d_k)
    return Z @ Wo, np.stack(attn)
