# diagnosis: mha_projections_transposed, mha_mask_large_negative
# style: NumPy port of The Annotated Transformer that keeps torch's nn.Linear semantics (F.linear = x @ W.T) and masked_fill(mask == 0, -1e9)
# notes: mha_projections_transposed: multi_head_attention goes through linear(x, W) = x @ W.T for Wq, Wk, Wv and Wo, as nn.Linear does
# notes: mha_mask_large_negative: attention() (called by multi_head_attention) fills blocked scores with -1e9 instead of -inf, so a fully masked row is uniform, not nan

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def linear(x, weight):
    """torch.nn.functional.linear without bias: y = x A^T."""
    return x @ weight.T


def attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = np.matmul(query, np.swapaxes(key, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores, axis=-1)
    return np.matmul(p_attn, value), p_attn


def split_heads(X, n_heads):
    n = X.shape[0]
    d_k = X.shape[1] // n_heads
    return X.reshape(n, -1, d_k).transpose(1, 0, 2)  # view(nbatches, -1, h, d_k).transpose(1, 2)


def merge_heads(H):
    h, n, d_k = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d_k)  # transpose(1, 2).contiguous().view(...)


class MultiHeadedAttention:
    def __init__(self, h, d_model, weights):
        "Take in model size and number of heads."
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.weights = weights  # [W_q, W_k, W_v, W_o], the four nn.Linear weights
        self.attn = None

    def __call__(self, x, mask=None):
        query, key, value = [split_heads(linear(x, W), self.h) for W in self.weights[:3]]
        x, self.attn = attention(query, key, value, mask=mask)
        x = merge_heads(x)
        return linear(x, self.weights[-1])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    mha = MultiHeadedAttention(n_heads, X.shape[1], [Wq, Wk, Wv, Wo])
    out = mha(X, mask)
    return out, mha.attn
