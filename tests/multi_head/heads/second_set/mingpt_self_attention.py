# diagnosis: mha_default_causal, merge_heads_no_transpose
# style: minGPT CausalSelfAttention ported to NumPy (q, k, v per head, att = (q @ k^T) * 1/sqrt(hs), masked_fill with a tril "bias" buffer)
# notes: mha_default_causal: CausalSelfAttention.forward (called by multi_head_attention) uses the tril bias buffer whenever mask is None
# notes: merge_heads_no_transpose: merge_heads does y.reshape(T, nh * hs) straight from (nh, T, hs), dropping minGPT's transpose(1, 2) before the view

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    T, C = X.shape
    return X.reshape(T, n_heads, C // n_heads).transpose(1, 0, 2)  # (nh, T, hs)


def merge_heads(H):
    nh, T, hs = H.shape
    # re-assemble all head outputs side by side
    return H.reshape(T, nh * hs)


class CausalSelfAttention:
    """
    A vanilla multi-head masked self-attention layer with a projection at the end.
    """

    def __init__(self, Wq, Wk, Wv, Wo, n_head):
        assert Wq.shape[0] % n_head == 0
        # key, query, value projections for all heads
        self.key, self.query, self.value = Wk, Wq, Wv
        # output projection
        self.proj = Wo
        self.n_head = n_head

    def forward(self, x, mask=None):
        T, C = x.shape

        # calculate query, key, values for all heads and move head forward to be the batch dim
        k = split_heads(x @ self.key, self.n_head)  # (nh, T, hs)
        q = split_heads(x @ self.query, self.n_head)  # (nh, T, hs)
        v = split_heads(x @ self.value, self.n_head)  # (nh, T, hs)

        # causal self-attention; Self-attend: (nh, T, hs) x (nh, hs, T) -> (nh, T, T)
        att = (q @ k.transpose(0, 2, 1)) * (1.0 / math.sqrt(k.shape[-1]))
        # causal mask to ensure that attention is only applied to the left in the input sequence
        bias = np.tril(np.ones((T, T), dtype=bool))
        if mask is None:
            mask = bias
        att = np.where(mask, att, float("-inf"))
        att = softmax(att, axis=-1)
        self.att = att
        y = att @ v  # (nh, T, T) x (nh, T, hs) -> (nh, T, hs)
        y = merge_heads(y)

        # output projection
        return y @ self.proj


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    layer = CausalSelfAttention(Wq, Wk, Wv, Wo, n_heads)
    out = layer.forward(X, mask)
    return out, layer.att
