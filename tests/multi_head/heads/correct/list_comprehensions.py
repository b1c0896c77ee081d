"""Correct multi-head attention in list comprehensions, computing each head's (Q, K, V) from
column slices and returning A as a list of per-head (n, n) arrays, which unpacks and stacks
as one (n_heads, n, n) array."""

import math

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d = X.shape[1] // n_heads
    return np.array([X[:, h * d:(h + 1) * d] for h in range(n_heads)])


def merge_heads(H):
    return np.array([np.concatenate([head[i] for head in H]) for i in range(H.shape[1])])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Qs, Ks, Vs = [split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv)]
    d_head = Qs.shape[-1]
    scores = [q @ k.T / math.sqrt(d_head) for q, k in zip(Qs, Ks)]
    if mask is not None:
        scores = [np.where(mask, s, -np.inf) for s in scores]
    weights = [softmax(s, axis=1) for s in scores]
    outs = np.array([a @ v for a, v in zip(weights, Vs)])
    return merge_heads(outs) @ Wo, weights
