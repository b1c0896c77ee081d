# diagnosis: scale_by_dk
# mistake: attention: it divides the scores by d_k instead of sqrt(d_k).
# mistake: causal_mask: it returns shape (1, n, n) with a leading batch axis (like GPT-2's registered bias buffer), not (n, n).
# uncatalogued: 1
# style: GPT-2 / nanoGPT port with a batch-capable head (swapaxes, leading axes) and a (1, T, T) mask buffer
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    ex = np.exp(x)
    return ex / np.sum(ex, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    # works for (T, C) as well as (B, T, C)
    hs = Q.shape[-1]
    att = (Q @ np.swapaxes(K, -2, -1)) / hs
    if mask is not None:
        att = np.where(mask, att, -np.inf)
    att = softmax(att, axis=-1)
    return att @ V, att


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    # self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, T, T))
    return np.tril(np.ones((n, n), dtype=bool)).reshape(1, n, n)
