# diagnosis: none
# uncatalogued: 0
# style: float32 throughout (like an ML framework), asserts on shapes
import numpy as np

F32 = np.float32


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=F32)
    z = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    Q = np.asarray(Q, dtype=F32)
    K = np.asarray(K, dtype=F32)
    V = np.asarray(V, dtype=F32)
    assert Q.shape[1] == K.shape[1] and K.shape[0] == V.shape[0]
    scores = (Q @ K.T) / F32(np.sqrt(Q.shape[1]))
    if mask is not None:
        scores = np.where(mask, scores, F32(-np.inf))
    A = softmax(scores, axis=-1)
    out = A @ V
    assert out.shape == (Q.shape[0], V.shape[1])
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    X = X.astype(F32)  # astype makes a copy: the caller's X is untouched
    return attention(X @ Wq.astype(F32), X @ Wk.astype(F32), X @ Wv.astype(F32), mask)


def causal_mask(n):
    return np.tri(n, n, 0, dtype=bool)
