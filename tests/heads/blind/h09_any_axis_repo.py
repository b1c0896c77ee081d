"""
Small "works for any axis" utility module from a from-scratch repo.

What is wrong:
- softmax reduces along the axis it is given but puts the reduced axis back as the
  last one ([..., None]) instead of where it was, so only the last axis is right.
- attention reshapes the keys, K.reshape(d_k, n_k), instead of transposing them:
  the entries are reordered, not transposed, so the scores are wrong whenever
  n_k > 1 and d_k > 1.
- self_attention builds the projections in a generator over (Wq, Wk, Wk): the values
  are made with Wk instead of Wv.
The global shift scores - scores.max() in attention is harmless (softmax does not
change when every score is shifted by the same constant).  causal_mask is fine.
"""
# diagnosis: softmax_reexpands_last_axis, keys_reshaped, self_attention_mixed_projections
# style: from-scratch repo utility module ("any axis" helpers, [..., None] broadcasting)
import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis)[..., None]
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis)[..., None]


def attention(Q, K, V, mask=None):
    n_k, d_k = K.shape
    scores = Q @ K.reshape(d_k, n_k)
    scores = scores / np.sqrt(d_k)
    scores = scores - scores.max()  # keep exp in range
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = (X @ W for W in (Wq, Wk, Wk))
    return attention(Q, K, V, mask)


def causal_mask(n):
    i = np.arange(n)
    return i[:, None] >= i[None, :]
