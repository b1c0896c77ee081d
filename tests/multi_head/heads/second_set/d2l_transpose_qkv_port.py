# diagnosis: split_heads_tokens_first, mha_scale_d_model
# style: d2l.ai MultiHeadAttention / DotProductAttention / transpose_qkv / transpose_output, ported without the batch axis
# notes: split_heads_tokens_first: split_heads (d2l's transpose_qkv) reshapes to (n, num_heads, d_head) and drops the permute, so heads are not the leading axis
# notes: mha_scale_d_model: DotProductAttention divides the scores by sqrt(num_hiddens) (d_model) instead of sqrt(queries.shape[-1])

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def masked_softmax(X, valid_mask=None):
    """Perform softmax operation by masking elements on the last axis."""
    if valid_mask is not None:
        X = np.where(valid_mask, X, -np.inf)
    return softmax(X, axis=-1)


def split_heads(X, n_heads):
    """transpose_qkv without the batch axis."""
    # Shape of input X: (no. of queries or key-value pairs, num_hiddens)
    # Shape of output X: (no. of queries or key-value pairs, num_heads, num_hiddens / num_heads)
    X = X.reshape(X.shape[0], n_heads, -1)
    return X


def merge_heads(H):
    """transpose_output: reverse the operation of transpose_qkv."""
    H = H.transpose(1, 0, 2)
    return H.reshape(H.shape[0], -1)


class DotProductAttention:
    """Scaled dot product attention."""

    def __init__(self, num_hiddens):
        self.num_hiddens = num_hiddens

    def __call__(self, queries, keys, values, valid_mask=None):
        scores = queries @ keys.swapaxes(-1, -2) / math.sqrt(self.num_hiddens)
        self.attention_weights = masked_softmax(scores, valid_mask)
        return self.attention_weights @ values


class MultiHeadAttention:
    """Multi-head attention."""

    def __init__(self, num_hiddens, num_heads, W_q, W_k, W_v, W_o):
        self.num_heads = num_heads
        self.attention = DotProductAttention(num_hiddens)
        self.W_q, self.W_k, self.W_v, self.W_o = W_q, W_k, W_v, W_o

    def __call__(self, queries, keys, values, valid_mask=None):
        queries = split_heads(queries @ self.W_q, self.num_heads)
        keys = split_heads(keys @ self.W_k, self.num_heads)
        values = split_heads(values @ self.W_v, self.num_heads)
        output = self.attention(queries, keys, values, valid_mask)
        output_concat = merge_heads(output)
        return output_concat @ self.W_o


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    layer = MultiHeadAttention(X.shape[1], n_heads, Wq, Wk, Wv, Wo)
    out = layer(X, X, X, mask)
    return out, layer.attention.attention_weights
