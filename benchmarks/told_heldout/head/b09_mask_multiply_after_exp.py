# diagnosis: self_attention_mask_inverted
# mistake: attention: it masks by multiplying exp(scores - rowmax) by the mask, with the row max taken over masked keys too, so when a masked key dominates the row the kept weights underflow to 0/0 = nan.
# mistake: self_attention: it computes the head itself and keeps the positions where the mask is False instead of those where it is True.
# uncatalogued: 1
# style: tutorial that masks by multiplying the exponentials with a 0/1 mask
import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    # stable exponentials
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    if mask is not None:
        e = e * mask.astype(e.dtype)    # zero out the forbidden keys
    A = e / e.sum(axis=-1, keepdims=True)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    A = softmax(scores, axis=-1)
    return A @ V, A


def causal_mask(n):
    i = np.arange(n)
    return i[:, None] >= i[None, :]
