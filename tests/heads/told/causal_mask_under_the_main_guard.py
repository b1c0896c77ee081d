"""A finished head whose causal_mask is defined only under if __name__ == "__main__": the
grader imports the file, so it is told where the def is, not merely that it is missing."""
# must-fail: causal_mask.values
# diagnosis: none
# told: causal_mask is missing | defined only under if __name__ == "__main__"
# not-told: raises


import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # (n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask == False -> weight 0
    A = softmax(scores, axis=-1)  # rows sum to 1
    return A @ V, A  # (n_q, d_v), (n_q, n_k)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


if __name__ == "__main__":
    def causal_mask(n):
        return np.tril(np.ones((n, n), dtype=bool))

    print(causal_mask(3))
