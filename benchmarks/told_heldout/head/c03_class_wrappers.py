# diagnosis: none
# uncatalogued: 0
# style: class-based layer (forward/__call__) with module-level wrapper functions
import numpy as np


class ScaledDotProductAttention:
    """softmax(Q K^T / sqrt(d_k)) V, one head, no batch axis."""

    neg_inf = -np.inf

    @staticmethod
    def softmax(x, axis=-1):
        m = x.max(axis=axis, keepdims=True)
        y = np.exp(x - m)
        return y / y.sum(axis=axis, keepdims=True)

    def forward(self, Q, K, V, mask=None):
        self.scale = 1.0 / np.sqrt(Q.shape[-1])
        scores = (Q @ K.T) * self.scale
        if mask is not None:
            scores = np.where(mask, scores, self.neg_inf)
        self.weights = self.softmax(scores, axis=-1)
        return self.weights @ V, self.weights

    __call__ = forward


class SelfAttentionHead:
    def __init__(self, Wq, Wk, Wv):
        self.Wq, self.Wk, self.Wv = Wq, Wk, Wv
        self.attn = ScaledDotProductAttention()

    def __call__(self, X, mask=None):
        return self.attn(X @ self.Wq, X @ self.Wk, X @ self.Wv, mask)


def softmax(x, axis=-1):
    return ScaledDotProductAttention.softmax(x, axis=axis)


def attention(Q, K, V, mask=None):
    return ScaledDotProductAttention()(Q, K, V, mask)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return SelfAttentionHead(Wq, Wk, Wv)(X, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
