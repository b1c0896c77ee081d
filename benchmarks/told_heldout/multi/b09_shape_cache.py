# diagnosis: none
# mistake: multi_head_attention: it memoises its result keyed by (X.shape, n_heads, mask is None), so a second call with new values of the same shapes returns the first call's answer.
# uncatalogued: 1
# style: functools-style memoisation added "for speed" with type hints
from typing import Dict, Optional, Tuple

import numpy as np

_memo: Dict[tuple, Tuple[np.ndarray, np.ndarray]] = {}


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X: np.ndarray, n_heads: int) -> np.ndarray:
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H: np.ndarray) -> np.ndarray:
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d)


def multi_head_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray,
                         Wo: np.ndarray, n_heads: int,
                         mask: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
    key = (X.shape, n_heads, mask is None)
    if key in _memo:
        return _memo[key]
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    result = (merge_heads(A @ V) @ Wo, A)
    _memo[key] = result
    return result
