# diagnosis: causal_mask_strict
# mistake: attention: it tests the mask with `if mask:`, which raises "truth value of an array is ambiguous" for any mask with more than one entry (and skips a 1x1 False mask).
# mistake: causal_mask: it uses np.tril(..., k=-1), so no token may attend to itself.
# uncatalogued: 1
# style: Python beginner relying on truthiness, short functions, print-debugging block at the end
import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if mask:
        scores[~mask] = -np.inf
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


if __name__ == "__main__":
    X = np.random.randn(4, 8)
    W = np.random.randn(8, 4)
    out, A = self_attention(X, W, W, W)
    print("A =", A)
    print("rows:", A.sum(axis=1))
