# diagnosis: none
# uncatalogued: 0
# style: class-based MultiHeadAttention in float32 with module-level wrappers, type hints
from typing import Optional, Tuple

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


class MultiHeadAttention:
    dtype = np.float32

    def __init__(self, Wq, Wk, Wv, Wo, n_heads: int):
        d_model = Wq.shape[0]
        if d_model % n_heads:
            raise ValueError("n_heads must divide d_model")
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        # astype copies, so the caller's weights are never touched
        self.Wq, self.Wk, self.Wv, self.Wo = (W.astype(self.dtype) for W in (Wq, Wk, Wv, Wo))

    @staticmethod
    def split(X: np.ndarray, n_heads: int) -> np.ndarray:
        n, d_model = X.shape
        return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)

    @staticmethod
    def merge(H: np.ndarray) -> np.ndarray:
        n_heads, n, d_head = H.shape
        return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)

    def __call__(self, X: np.ndarray, mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        X = X.astype(self.dtype)
        Q = self.split(X @ self.Wq, self.n_heads)
        K = self.split(X @ self.Wk, self.n_heads)
        V = self.split(X @ self.Wv, self.n_heads)
        scores = Q @ np.swapaxes(K, -1, -2) / self.dtype(np.sqrt(self.d_head))
        if mask is not None:
            scores = np.where(mask, scores, self.dtype(-np.inf))
        A = softmax(scores, axis=-1)
        return self.merge(A @ V) @ self.Wo, A


def split_heads(X, n_heads):
    return MultiHeadAttention.split(X, n_heads)


def merge_heads(H):
    return MultiHeadAttention.merge(H)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    return MultiHeadAttention(Wq, Wk, Wv, Wo, n_heads)(X, mask)
