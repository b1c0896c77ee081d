# diagnosis: causal_mask_upper
# mistake: attention: it memoises its result in a dict keyed by the input shapes, so a second call with new values of the same shapes returns the first call's answer.
# mistake: causal_mask: it keeps the upper triangle (np.triu), so each token sees the future.
# uncatalogued: 1
# style: premature-optimisation student with a module-level memo cache and type hints
from typing import Dict, Optional, Tuple

import numpy as np

_CACHE: Dict[tuple, Tuple[np.ndarray, np.ndarray]] = {}


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    z = x - x.max(axis=axis, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=axis, keepdims=True)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
              mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    # attention is called a lot in the notebook with the same sizes: memoise it
    key = (Q.shape, K.shape, V.shape, None if mask is None else mask.shape)
    if key in _CACHE:
        out, A = _CACHE[key]
        return out.copy(), A.copy()
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = A @ V
    _CACHE[key] = (out, A)
    return out.copy(), A.copy()


def self_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray,
                   mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool))
