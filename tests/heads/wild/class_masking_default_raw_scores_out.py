"""A class-based head (query, key, value stored on the object). Its softmax exponentiates
without subtracting the max. compute() has masking=True by default, so when attention gets
no mask it still applies a causal one; and the new values are computed from the raw,
unscaled score matrix (np.dot(matrix_attention, value)) instead of from the softmax weights."""
# must-fail: softmax.large_logits, attention.worked_example, attention.convex_combination, attention.matches_reference
# diagnosis: softmax_no_max_shift, default_causal, output_uses_raw_scores
# style: geoz-lab/ML_interview/1_ML_coding/transformer.md

import math

import numpy as np


class SelfAttentionHead:
    def __init__(self, query, key, value):
        self.query = query
        self.key = key
        self.value = value

    @staticmethod
    def softmax(x, axis=-1):
        return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)

    def compute(self, mask=None, masking=True):
        d_k = self.query.shape[-1]
        # attention matrix
        matrix_attention = np.dot(self.query, self.key.T)
        # scaling
        scaling = matrix_attention / math.sqrt(d_k)
        if mask is not None:
            scaling = np.where(mask, scaling, -np.inf)
        elif masking:
            # masking removes the context of future words
            size = self.query.shape[0]
            future = np.triu(np.ones((size, size), dtype=bool), k=1)
            scaling = np.where(future, -np.inf, scaling)
        attention = self.softmax(scaling)
        # new values of the words
        new_value = np.dot(matrix_attention, self.value)
        return new_value, attention


def softmax(x, axis=-1):
    return SelfAttentionHead.softmax(x, axis)


def attention(Q, K, V, mask=None):
    return SelfAttentionHead(Q, K, V).compute(mask)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
