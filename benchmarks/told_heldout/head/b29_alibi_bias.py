# diagnosis: none
# mistake: attention: it adds an ALiBi distance penalty (-0.5 * |i - j|) to the scores, so the weights depend on token positions and are not softmax(QK^T / sqrt(d_k)).
# uncatalogued: 1
# style: BLOOM/ALiBi port that bakes a linear position bias into the head
import numpy as np

ALIBI_SLOPE = 0.5


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def alibi_bias(n_q, n_k, slope=ALIBI_SLOPE):
    q_pos = np.arange(n_q)[:, None]
    k_pos = np.arange(n_k)[None, :]
    return -slope * np.abs(q_pos - k_pos)


def attention(Q, K, V, mask=None):
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    scores = Q @ K.T / np.sqrt(d_k) + alibi_bias(n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
