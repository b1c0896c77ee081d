# diagnosis: self_attention_scale_precedence
# mistake: attention: it divides the scores by sqrt(d_k) * TEMPERATURE with a hard-coded temperature of 0.7, which sharpens every weight.
# mistake: self_attention: it computes the head itself and divides by d_k ** 1/2, which Python reads as d_k / 2.
# uncatalogued: 1
# style: sampling-code habit (a global temperature) left in a homework file
import numpy as np

TEMPERATURE = 0.7   # sharper attention looked nicer in the heatmaps


def softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    z = np.exp(z)
    return z / z.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    logits = Q @ K.T / (np.sqrt(d_k) * TEMPERATURE)
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    A = softmax(logits)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d_k = Q.shape[-1]
    logits = Q @ K.T / d_k ** 1/2
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    A = softmax(logits)
    return A @ V, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
