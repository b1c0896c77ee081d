# diagnosis: none
# mistake: self_attention: it layer-normalises X (pre-LN transformer block) before projecting it, so Q, K and V are not X Wq, X Wk, X Wv.
# uncatalogued: 1
# style: class-based transformer block (pre-LN) with module-level wrappers
import numpy as np


class Softmax:
    def __init__(self, axis=-1):
        self.axis = axis

    def __call__(self, x):
        z = x - x.max(axis=self.axis, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=self.axis, keepdims=True)


class LayerNorm:
    def __init__(self, eps=1e-5):
        self.eps = eps

    def __call__(self, x):
        mu = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps)


class AttentionHead:
    def __init__(self, Wq, Wk, Wv):
        self.Wq, self.Wk, self.Wv = Wq, Wk, Wv
        self.ln = LayerNorm()

    @staticmethod
    def scaled_dot_product(Q, K, V, mask=None):
        scores = Q @ K.T / np.sqrt(K.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = Softmax(-1)(scores)
        return A @ V, A

    def forward(self, X, mask=None):
        h = self.ln(X)                       # pre-LN, as in GPT-2
        Q, K, V = h @ self.Wq, h @ self.Wk, h @ self.Wv
        return self.scaled_dot_product(Q, K, V, mask)

    __call__ = forward


def softmax(x, axis=-1):
    return Softmax(axis)(x)


def attention(Q, K, V, mask=None):
    return AttentionHead.scaled_dot_product(Q, K, V, mask)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return AttentionHead(Wq, Wk, Wv)(X, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
