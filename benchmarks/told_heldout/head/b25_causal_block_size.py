# diagnosis: softmax_global_normalization
# mistake: softmax: it divides by the sum of the whole array, not each row's sum.
# mistake: causal_mask: it slices a precomputed block_size = 8 buffer, so for n > 8 it returns an 8 x 8 mask instead of n x n.
# uncatalogued: 1
# style: nanoGPT-style block_size buffer computed once at import
import numpy as np

block_size = 8
_BIAS = np.tril(np.ones((block_size, block_size), dtype=bool))


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e)


def attention(Q, K, V, mask=None):
    T, hs = Q.shape
    wei = Q @ K.T * hs ** -0.5
    if mask is not None:
        wei = np.where(mask, wei, float("-inf"))
    wei = wei - wei.max(axis=-1, keepdims=True)
    wei = np.exp(wei)
    wei = wei / wei.sum(axis=-1, keepdims=True)
    return wei @ V, wei


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return _BIAS[:n, :n].copy()
