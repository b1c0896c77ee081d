"""Work in progress: placeholders everywhere except the two outer functions.

Finished: self_attention calls attention with the mask, but builds the queries with Wk and
the keys with Wq; causal_mask, correct (np.tril of bool ones).
Unfinished: softmax is `return np.zeros_like(x)`; attention is the uniform-weights
placeholder (A = np.ones((n_q, n_k)) / n_k, no scores computed; returns A @ V, A).
"""
# unfinished: softmax, attention
# diagnosis: self_attention_swapped_projections
import numpy as np


def softmax(x, axis=-1):
    return np.zeros_like(x)


def attention(Q, K, V, mask=None):
    # placeholder: every query attends uniformly until scores are written
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.ones((n_q, n_k)) / n_k
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    queries = X @ Wk
    keys = X @ Wq
    values = X @ Wv
    return attention(queries, keys, values, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
