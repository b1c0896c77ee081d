# diagnosis: none
# style: d2l.ai MultiHeadAttention with transpose_qkv / transpose_output and masked_softmax, kept with a batch axis of size 1
# notes: correct: adds a batch axis (X[None]), uses d2l's 4-D reshape/permute/reshape, removes the batch axis at the end; masked_softmax fills -inf

import math

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def masked_softmax(X, valid_mask=None):
    """Perform softmax operation by masking elements on the last axis."""
    if valid_mask is None:
        return softmax(X, axis=-1)
    return softmax(np.where(valid_mask, X, -np.inf), axis=-1)


class DotProductAttention:
    """Scaled dot product attention."""

    def __call__(self, queries, keys, values, valid_mask=None):
        d = queries.shape[-1]
        scores = queries @ keys.transpose(0, 2, 1) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_mask)
        return self.attention_weights @ values


def transpose_qkv(X, num_heads):
    """Transposition for parallel computation of multiple attention heads."""
    # Shape of input X: (batch_size, no. of queries or key-value pairs, num_hiddens).
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    # (batch_size, num_heads, no. of queries or key-value pairs, num_hiddens / num_heads)
    X = X.transpose(0, 2, 1, 3)
    # (batch_size * num_heads, no. of queries or key-value pairs, num_hiddens / num_heads)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    """Reverse the operation of transpose_qkv."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.transpose(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


def split_heads(X, n_heads):
    return transpose_qkv(X[np.newaxis], n_heads)


def merge_heads(H):
    return transpose_output(H, H.shape[0])[0]


class MultiHeadAttention:
    """Multi-head attention."""

    def __init__(self, num_heads, W_q, W_k, W_v, W_o):
        self.num_heads = num_heads
        self.attention = DotProductAttention()
        self.W_q, self.W_k, self.W_v, self.W_o = W_q, W_k, W_v, W_o

    def __call__(self, queries, keys, values, valid_mask=None):
        queries = transpose_qkv(queries @ self.W_q, self.num_heads)
        keys = transpose_qkv(keys @ self.W_k, self.num_heads)
        values = transpose_qkv(values @ self.W_v, self.num_heads)
        output = self.attention(queries, keys, values, valid_mask)
        output_concat = transpose_output(output, self.num_heads)
        return output_concat @ self.W_o


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    layer = MultiHeadAttention(n_heads, Wq, Wk, Wv, Wo)
    batch = X[np.newaxis]
    out = layer(batch, batch, batch, mask)
    return out[0], layer.attention.attention_weights
