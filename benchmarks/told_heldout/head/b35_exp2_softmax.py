# diagnosis: weights_returned_transposed, self_attention_weights_not_returned
# mistake: softmax: it uses base-2 exponentials (np.exp2) without rescaling the logits by log2(e), so it computes a softmax of x * ln 2, which is too flat.
# mistake: attention: it returns A transposed, shape (n_k, n_q).
# mistake: self_attention: it computes the head itself and returns only the output, not (out, A).
# uncatalogued: 1
# style: FlashAttention-inspired kernel port using exp2, batch-capable einsum
import numpy as np


def softmax(x, axis=-1):
    # exp2 is cheaper than exp on GPUs
    m = np.max(x, axis=axis, keepdims=True)
    p = np.exp2(x - m)
    return p / np.sum(p, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scale = Q.shape[-1] ** -0.5
    S = np.einsum("...qd,...kd->...qk", Q, K) * scale
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=-1, keepdims=True)
    O = np.einsum("...qk,...kd->...qd", P, V)
    return O, np.swapaxes(P, -1, -2)


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = np.einsum("qd,kd->qk", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P /= P.sum(axis=-1, keepdims=True)
    return P @ V


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
