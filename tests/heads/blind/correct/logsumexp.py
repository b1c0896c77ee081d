"""
Correct head written in the log domain.

softmax(x) = exp(x - logsumexp(x)), with logsumexp computed stably as
m + log(sum(exp(x - m))).  attention forms log-weights the same way and
exponentiates once.  A fully masked row has m = -inf, so x - m is nan and the row is
nan, as in the lesson.
"""
# diagnosis: none
# style: log-sum-exp / log-domain probabilities (statistics-course code)
import numpy as np


def _logsumexp(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    x = np.asarray(x)
    return np.exp(x - _logsumexp(x, axis))


def attention(Q, K, V, mask=None):
    log_scores = np.matmul(Q, K.T) / np.sqrt(Q.shape[-1])
    if mask is not None:
        log_scores = np.where(mask, log_scores, -np.inf)
    log_A = log_scores - _logsumexp(log_scores, axis=-1)
    A = np.exp(log_A)
    return np.matmul(A, V), A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.matmul(X, Wq)
    K = np.matmul(X, Wk)
    V = np.matmul(X, Wv)
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    return np.tri(n, dtype=bool)
