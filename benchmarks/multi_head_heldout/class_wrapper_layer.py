# diagnosis: mha_mutates_inputs, mha_reshape_without_transpose
# style: class wrapper (MultiHeadAttention with _project and forward) called from the required functions, boolean-index masking
# notes: mha_mutates_inputs: MultiHeadAttention.forward flips the caller's mask in place with np.logical_not(mask, out=mask) before indexing with it
# notes: mha_reshape_without_transpose: MultiHeadAttention._project splits inline with (X @ W).reshape(n_heads, n, d_head), no transpose (split_heads is right but unused)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


class MultiHeadAttention:
    def __init__(self, Wq, Wk, Wv, Wo, n_heads):
        self.Wq, self.Wk, self.Wv, self.Wo = Wq, Wk, Wv, Wo
        self.n_heads = n_heads
        self.d_head = Wq.shape[1] // n_heads

    def _project(self, X, W):
        n = X.shape[0]
        return (X @ W).reshape(self.n_heads, n, self.d_head)

    def forward(self, X, mask=None):
        Q = self._project(X, self.Wq)
        K = self._project(X, self.Wk)
        V = self._project(X, self.Wv)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(self.d_head)
        if mask is not None:
            blocked = np.logical_not(mask, out=mask)  # True now marks the keys a query may not see
            scores[:, blocked] = -np.inf
        self.A = softmax(scores, axis=-1)
        return merge_heads(self.A @ V) @ self.Wo


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    layer = MultiHeadAttention(Wq, Wk, Wv, Wo, n_heads)
    out = layer.forward(X, mask)
    return out, layer.A
