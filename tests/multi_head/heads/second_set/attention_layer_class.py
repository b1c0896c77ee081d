# diagnosis: mha_mask_after_softmax, mha_scale_d_model
# style: object-oriented layer (class with __init__/forward and a scaled_dot_product method) called from the required functions
# notes: mha_mask_after_softmax: MultiHeadSelfAttention.scaled_dot_product applies softmax first, then multiplies the weights by the mask, so rows no longer sum to 1
# notes: mha_scale_d_model: MultiHeadSelfAttention.scaled_dot_product divides by np.sqrt(self.d_model) instead of sqrt(d_head)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


class MultiHeadSelfAttention:
    def __init__(self, Wq, Wk, Wv, Wo, n_heads):
        self.Wq, self.Wk, self.Wv, self.Wo = Wq, Wk, Wv, Wo
        self.n_heads = n_heads
        self.d_model = Wq.shape[0]
        self.d_head = self.d_model // n_heads

    def scaled_dot_product(self, Q, K, V, mask=None):
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(self.d_model)
        weights = softmax(scores, axis=-1)
        if mask is not None:
            weights = weights * mask
        return weights @ V, weights

    def forward(self, X, mask=None):
        Q = split_heads(X @ self.Wq, self.n_heads)
        K = split_heads(X @ self.Wk, self.n_heads)
        V = split_heads(X @ self.Wv, self.n_heads)
        heads, self.weights = self.scaled_dot_product(Q, K, V, mask)
        return merge_heads(heads) @ self.Wo


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    layer = MultiHeadSelfAttention(Wq, Wk, Wv, Wo, n_heads)
    out = layer.forward(X, mask)
    return out, layer.weights
