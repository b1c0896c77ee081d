# diagnosis: none
# uncatalogued: 0
# style: batch-capable einsum implementation (works for (n, d) and (B, n, d)), type hints
from typing import Optional, Tuple

import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    num = np.exp(shifted)
    return num / np.sum(num, axis=axis, keepdims=True)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
              mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    d_k = Q.shape[-1]
    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask.astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = np.einsum("...qk,...kv->...qv", A, V)
    return out, A


def self_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray,
                   mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    Q = np.einsum("...nd,dk->...nk", X, Wq)
    K = np.einsum("...nd,dk->...nk", X, Wk)
    V = np.einsum("...nd,dv->...nv", X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n: int) -> np.ndarray:
    idx = np.arange(n)
    return idx[None, :] <= idx[:, None]
