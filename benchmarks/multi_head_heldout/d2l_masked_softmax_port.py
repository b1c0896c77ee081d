# diagnosis: mha_softmax_no_keepdims, split_heads_reshape_only
# style: d2l.ai masked_softmax + DotProductAttention + transpose_qkv/transpose_output, batch axis dropped
# notes: mha_softmax_no_keepdims: masked_softmax (used by DotProductAttention for the (num_heads, n, n) scores) returns e / e.sum(axis=-1) without keepdims
# notes: split_heads_reshape_only: split_heads (transpose_qkv) is X.reshape(num_heads, -1, num_hiddens // num_heads), no permute

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
    X = X - X.max(axis=-1, keepdims=True)
    e = np.exp(X)
    return e / e.sum(axis=-1)


class DotProductAttention:
    """Scaled dot product attention."""

    def __call__(self, queries, keys, values, valid_mask=None):
        d = queries.shape[-1]
        scores = queries @ keys.swapaxes(1, 2) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_mask)
        return self.attention_weights @ values


def split_heads(X, n_heads):
    """transpose_qkv: (n, num_hiddens) -> (num_heads, n, num_hiddens / num_heads)."""
    num_hiddens = X.shape[1]
    return X.reshape(n_heads, -1, num_hiddens // n_heads)


def merge_heads(H):
    """transpose_output: (num_heads, n, d) -> (n, num_heads * d)."""
    H = H.transpose(1, 0, 2)
    return H.reshape(H.shape[0], -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    queries = split_heads(X @ Wq, n_heads)
    keys = split_heads(X @ Wk, n_heads)
    values = split_heads(X @ Wv, n_heads)
    attention = DotProductAttention()
    output = attention(queries, keys, values, mask)
    output_concat = merge_heads(output)
    return output_concat @ Wo, attention.attention_weights
