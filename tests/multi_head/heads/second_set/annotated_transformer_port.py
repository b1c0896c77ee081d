# diagnosis: none
# style: NumPy port of The Annotated Transformer (attention() + MultiHeadedAttention class with a list of "linears")
# notes: correct: weights kept (d_in, d_out) so Linear is x @ W; view/transpose(1, 2) become reshape/transpose(1, 0, 2); masked_fill(mask == 0, -inf) via np.where

"""Multi-head attention, ported from The Annotated Transformer (Harvard NLP) to NumPy."""

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


class Linear:
    """Bias-free linear layer. The assignment stores W as (d_in, d_out), so it is x @ W."""

    def __init__(self, weight):
        self.weight = weight

    def __call__(self, x):
        return x @ self.weight


def attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = np.matmul(query, np.swapaxes(key, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -np.inf, scores)  # scores.masked_fill(mask == 0, -inf)
    p_attn = softmax(scores, axis=-1)
    return np.matmul(p_attn, value), p_attn


def split_heads(X, n_heads):
    # x.view(nbatches, -1, h, d_k).transpose(1, 2), without the batch axis
    d_k = X.shape[-1] // n_heads
    return X.reshape(X.shape[0], -1, d_k).transpose(1, 0, 2)


def merge_heads(H):
    # x.transpose(1, 2).contiguous().view(nbatches, -1, h * d_k), without the batch axis
    h, n, d_k = H.shape
    return np.ascontiguousarray(H.transpose(1, 0, 2)).reshape(n, h * d_k)


class MultiHeadedAttention:
    def __init__(self, h, d_model, linears):
        "Take in model size and number of heads."
        assert d_model % h == 0
        # We assume d_v always equals d_k
        self.d_k = d_model // h
        self.h = h
        self.linears = linears
        self.attn = None

    def __call__(self, query, key, value, mask=None):
        "Implements Figure 2"
        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            split_heads(lin(x), self.h)
            for lin, x in zip(self.linears, (query, key, value))
        ]
        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = attention(query, key, value, mask=mask)
        # 3) "Concat" using a view and apply a final linear.
        x = merge_heads(x)
        del query
        del key
        del value
        return self.linears[-1](x)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    mha = MultiHeadedAttention(n_heads, X.shape[-1], [Linear(W) for W in (Wq, Wk, Wv, Wo)])
    out = mha(X, X, X, mask=mask)
    return out, mha.attn
