# diagnosis: none
# style: class-based layer with docstrings and asserts; softmax rewritten as exp(x - logsumexp(x))
# notes: correct: top-level functions build a HeadSplitter / MultiHeadAttention object and call it; logsumexp softmax still gives nan on a fully masked row

"""Multi-head self-attention, organised as small classes.

The top-level functions required by the assignment are thin wrappers around them.
"""

import numpy as np


def softmax(x, axis=-1):
    """Softmax along `axis`, computed as exp(x - logsumexp(x))."""
    m = np.max(x, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - lse)


class HeadSplitter:
    """Moves between the (n, d_model) layout and the (n_heads, n, d_head) layout."""

    def __init__(self, n_heads):
        assert n_heads >= 1
        self.n_heads = n_heads

    def split(self, X):
        n, d_model = X.shape
        assert d_model % self.n_heads == 0, "d_model must be a multiple of n_heads"
        d_head = d_model // self.n_heads
        return np.transpose(np.reshape(X, (n, self.n_heads, d_head)), (1, 0, 2))

    def merge(self, H):
        assert H.shape[0] == self.n_heads
        _, n, d_head = H.shape
        return np.reshape(np.transpose(H, (1, 0, 2)), (n, self.n_heads * d_head))


class MultiHeadAttention:
    """Holds the four projections; calling it runs the layer on one sequence."""

    def __init__(self, Wq, Wk, Wv, Wo, n_heads):
        d_model = Wq.shape[0]
        for W in (Wq, Wk, Wv, Wo):
            assert W.shape == (d_model, d_model), "projections must be square"
        self.Wq, self.Wk, self.Wv, self.Wo = Wq, Wk, Wv, Wo
        self.heads = HeadSplitter(n_heads)
        self.d_head = d_model // n_heads
        self.inv_sqrt_d = 1.0 / np.sqrt(self.d_head)

    def __call__(self, X, mask=None):
        Q = self.heads.split(X @ self.Wq)
        K = self.heads.split(X @ self.Wk)
        V = self.heads.split(X @ self.Wv)
        scores = np.matmul(Q, K.transpose(0, 2, 1)) * self.inv_sqrt_d
        if mask is not None:
            assert mask.shape == scores.shape[-2:], "one (n, n) mask for all heads"
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores, axis=-1)
        out = self.heads.merge(np.matmul(A, V)) @ self.Wo
        assert out.shape == X.shape
        return out, A


def split_heads(X, n_heads):
    """(n, d_model) -> (n_heads, n, d_head); head h is X[:, h*d_head:(h+1)*d_head]."""
    return HeadSplitter(n_heads).split(X)


def merge_heads(H):
    """(n_heads, n, d_head) -> (n, n_heads * d_head), the inverse of split_heads."""
    return HeadSplitter(H.shape[0]).merge(H)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    """Returns (out, A) with out (n, d_model) and A (n_heads, n, n)."""
    return MultiHeadAttention(Wq, Wk, Wv, Wo, n_heads)(X, mask)
