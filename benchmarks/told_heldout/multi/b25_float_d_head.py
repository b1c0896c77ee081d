# diagnosis: merge_heads_stacks_tokens
# mistake: merge_heads: it stacks the heads with np.vstack, giving (n_heads * n, d_head) instead of (n, n_heads * d_head).
# mistake: multi_head_attention: it computes d_head with true division (d_model / n_heads), a float, and np.reshape raises TypeError on a float dimension.
# uncatalogued: 1
# style: math-first student who writes d_model / n_heads as in the paper, type hints
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X: np.ndarray, n_heads: int) -> np.ndarray:
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def merge_heads(H: np.ndarray) -> np.ndarray:
    return np.vstack(H)


def multi_head_attention(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray,
                         Wo: np.ndarray, n_heads: int, mask=None):
    n, d_model = X.shape
    d_head = d_model / n_heads          # d_k = d_model / h (Vaswani et al.)
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = (X @ Wk).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    V = (X @ Wv).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ Wo
    return out, A
