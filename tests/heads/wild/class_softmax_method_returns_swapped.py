"""A class-based head wrapped into the four functions. The class's softmax is
np.exp(x) / np.exp(x).sum(axis=1, keepdims=True): no max shift, and the module-level softmax
hands every call to it, so its axis argument is ignored (always axis 1). forward() returns
(weights, output), so attention returns them swapped."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.shapes, attention.matches_reference
# diagnosis: softmax_no_max_shift, softmax_fixed_axis, returns_swapped
# style: geoz-lab/ML_interview/1_ML_coding/transformer.md

import numpy as np


class ScaledDotProductAttention:
    def __init__(self, d_k):
        self.d_k = d_k

    @staticmethod
    def softmax(x):
        return np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)

    def forward(self, Q, K, V, mask=None):
        scores = Q @ K.T / np.sqrt(self.d_k)  # one row per query
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        attn_weights = self.softmax(scores)  # each row a distribution over keys
        output = attn_weights @ V  # mix of value rows
        return attn_weights, output


def softmax(x, axis=-1):
    return ScaledDotProductAttention.softmax(x)


def attention(Q, K, V, mask=None):
    return ScaledDotProductAttention(Q.shape[-1]).forward(Q, K, V, mask)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
