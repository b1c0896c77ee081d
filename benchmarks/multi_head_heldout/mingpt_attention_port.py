# diagnosis: none
# style: minGPT CausalSelfAttention ported to NumPy, with the mask passed in instead of a registered tril buffer
# notes: correct: att = (q @ k^T) * (1.0 / math.sqrt(hs)); masked_fill(-inf) only when a mask is given; y.swapaxes(0, 1).reshape(T, C) before the projection

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    T, C = X.shape
    return X.reshape(T, n_heads, C // n_heads).swapaxes(0, 1)  # (nh, T, hs)


def merge_heads(H):
    nh, T, hs = H.shape
    return H.swapaxes(0, 1).reshape(T, nh * hs)  # re-assemble all head outputs side by side


class CausalSelfAttention:
    """
    A vanilla multi-head masked self-attention layer with a projection at the end.
    """

    def __init__(self, Wq, Wk, Wv, Wo, n_head):
        assert Wq.shape[0] % n_head == 0
        # key, query, value projections for all heads
        self.query, self.key, self.value = Wq, Wk, Wv
        # output projection
        self.proj = Wo
        self.n_head = n_head
        self.att = None

    def forward(self, x, mask=None):
        T, C = x.shape

        # calculate query, key, values for all heads and move head forward to be the batch dim
        q = split_heads(x @ self.query, self.n_head)  # (nh, T, hs)
        k = split_heads(x @ self.key, self.n_head)  # (nh, T, hs)
        v = split_heads(x @ self.value, self.n_head)  # (nh, T, hs)

        # self-attend: (nh, T, hs) x (nh, hs, T) -> (nh, T, T)
        att = (q @ k.swapaxes(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
        if mask is not None:
            att = np.where(mask[:T, :T], att, float("-inf"))
        att = softmax(att, axis=-1)
        self.att = att
        y = att @ v  # (nh, T, T) x (nh, T, hs) -> (nh, T, hs)
        y = merge_heads(y)

        # output projection
        return y @ self.proj


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    block = CausalSelfAttention(Wq, Wk, Wv, Wo, n_heads)
    y = block.forward(X, mask)
    return y, block.att
