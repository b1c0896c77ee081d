# diagnosis: softmax_default_axis_none
# mistake: softmax: its axis defaults to None, so with no axis given it normalises over the whole array.
# mistake: causal_mask: it returns the identity (np.eye), so each token may attend only to itself, not to the tokens before it.
# uncatalogued: 1
# style: confused student who thinks "causal" means "only itself", type hints and docstrings
import numpy as np
from numpy.typing import NDArray


def softmax(x: NDArray, axis=None) -> NDArray:
    """Softmax along `axis` (all of x if axis is None)."""
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q: NDArray, K: NDArray, V: NDArray, mask: NDArray | None = None):
    """softmax(QK^T / sqrt(d_k)) V, returns (out, A)."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X: NDArray, Wq: NDArray, Wk: NDArray, Wv: NDArray,
                   mask: NDArray | None = None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n: int) -> NDArray:
    """Token i may only look at position i (no peeking)."""
    return np.eye(n, dtype=bool)
