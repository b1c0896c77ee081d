# diagnosis: self_attention_missing_scale
# mistake: attention: it passes the weights through np.nan_to_num, so a fully masked row has weights 0 (and output 0) instead of nan.
# mistake: self_attention: it computes the head itself and never divides the scores by sqrt(d_k).
# uncatalogued: 1
# style: defensive student code full of asserts and nan clean-up
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    ex = np.exp(shifted)
    return ex / np.sum(ex, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    assert Q.ndim == 2 and K.ndim == 2 and V.ndim == 2, "expected 2-D inputs"
    assert Q.shape[1] == K.shape[1], "Q and K must share d_k"
    assert K.shape[0] == V.shape[0], "K and V must have the same number of rows"
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        assert mask.shape == scores.shape
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    A = np.nan_to_num(A)  # never let nan escape
    out = A @ V
    assert out.shape == (Q.shape[0], V.shape[1])
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    assert X.ndim == 2
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def causal_mask(n):
    assert n >= 1
    m = np.tril(np.ones((n, n), dtype=bool))
    assert m.dtype == bool
    return m
