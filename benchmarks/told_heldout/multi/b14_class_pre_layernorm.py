# diagnosis: none
# mistake: multi_head_attention: it layer-normalises X (pre-LN) before the projections, so Q, K and V are not X Wq, X Wk, X Wv.
# uncatalogued: 1
# style: class-based MultiHeadAttention module (pre-LN block) with module-level wrappers
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


class LayerNorm:
    def __init__(self, eps=1e-5):
        self.eps = eps

    def __call__(self, x):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps)


class MultiHeadAttention:
    def __init__(self, Wq, Wk, Wv, Wo, n_heads):
        assert Wq.shape[0] % n_heads == 0
        self.Wq, self.Wk, self.Wv, self.Wo = Wq, Wk, Wv, Wo
        self.n_heads = n_heads
        self.ln_1 = LayerNorm()

    @staticmethod
    def split(X, n_heads):
        n, d = X.shape
        return X.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)

    @staticmethod
    def merge(H):
        h, n, d = H.shape
        return H.transpose(1, 0, 2).reshape(n, h * d)

    def forward(self, X, mask=None):
        x = self.ln_1(X)
        Q = self.split(x @ self.Wq, self.n_heads)
        K = self.split(x @ self.Wk, self.n_heads)
        V = self.split(x @ self.Wv, self.n_heads)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores, axis=-1)
        return self.merge(A @ V) @ self.Wo, A

    __call__ = forward


def split_heads(X, n_heads):
    return MultiHeadAttention.split(X, n_heads)


def merge_heads(H):
    return MultiHeadAttention.merge(H)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    return MultiHeadAttention(Wq, Wk, Wv, Wo, n_heads)(X, mask)
