# diagnosis: mha_reshape_without_transpose, mha_no_output_projection
# style: NumPy port of The Annotated Transformer's MultiHeadedAttention (zip over linears, view/transpose, "Concat" with a view)
# notes: mha_reshape_without_transpose: MultiHeadedAttention.__call__ (called by multi_head_attention) concatenates inline with x.reshape(n, h * d_k) straight from (h, n, d_k), dropping transpose(1, 2)
# notes: mha_no_output_projection: MultiHeadedAttention.__call__ returns the concatenated heads; the final self.linears[-1] (Wo) is never applied

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = query @ np.swapaxes(key, -2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, float("-inf"), scores)
    p_attn = softmax(scores, axis=-1)
    return p_attn @ value, p_attn


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    h, n, d_k = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d_k)


class MultiHeadedAttention:
    def __init__(self, h, d_model, linears):
        "Take in model size and number of heads."
        assert d_model % h == 0
        # We assume d_v always equals d_k
        self.d_k = d_model // h
        self.h = h
        self.linears = linears  # 4 weight matrices: W_q, W_k, W_v, W_o
        self.attn = None

    def __call__(self, query, key, value, mask=None):
        "Implements Figure 2"
        n = query.shape[0]

        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            (x @ lin).reshape(n, self.h, self.d_k).transpose(1, 0, 2)
            for lin, x in zip(self.linears, (query, key, value))
        ]

        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = attention(query, key, value, mask=mask)

        # 3) "Concat" using a view (no .contiguous() needed in NumPy).
        x = x.reshape(n, self.h * self.d_k)
        return x, self.attn


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    mha = MultiHeadedAttention(n_heads, X.shape[1], [Wq, Wk, Wv, Wo])
    return mha(X, X, X, mask)
