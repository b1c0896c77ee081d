# diagnosis: self_attention_drops_mask
# mistake: softmax: it returns log-probabilities (x - logsumexp(x)) instead of probabilities.
# mistake: self_attention: it never passes its mask on to attention.
# uncatalogued: 1
# style: student who read a logsumexp tutorial and mixed up log_softmax and softmax
import numpy as np


def logsumexp(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    # numerically stable via the log-sum-exp trick
    return x - logsumexp(x, axis=axis)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    m = scores.max(axis=-1, keepdims=True)
    A = np.exp(scores - m)
    A /= A.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
