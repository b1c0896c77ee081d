# diagnosis: mha_default_causal, mha_scale_wrong_dim, merge_heads_interleaved
# style: nanoGPT CausalSelfAttention ported to NumPy (fused c_attn weight split into q, k, v; tril "bias"; c_proj)
# notes: mha_default_causal: CausalSelfAttention.forward uses the tril bias as the mask whenever mask is None
# notes: mha_scale_wrong_dim: CausalSelfAttention.forward multiplies by 1.0 / math.sqrt(self.n_head) instead of 1/sqrt(head size)
# notes: merge_heads_interleaved: merge_heads does np.moveaxis(H, 0, -1).reshape(T, -1), i.e. (T, hs, nh), interleaving the heads' columns (forward uses it)

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
    return np.moveaxis(H, 0, -1).reshape(T, nh * hs)


class CausalSelfAttention:

    def __init__(self, Wq, Wk, Wv, Wo, n_head):
        n_embd = Wq.shape[0]
        assert n_embd % n_head == 0
        # key, query, value projections for all heads, but in a batch
        self.c_attn = np.concatenate([Wq, Wk, Wv], axis=1)  # (n_embd, 3 * n_embd)
        # output projection
        self.c_proj = Wo
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x, mask=None):
        T, C = x.shape  # sequence length, embedding dimensionality (n_embd)

        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        q, k, v = np.split(x @ self.c_attn, 3, axis=1)
        k = split_heads(k, self.n_head)  # (nh, T, hs)
        q = split_heads(q, self.n_head)  # (nh, T, hs)
        v = split_heads(v, self.n_head)  # (nh, T, hs)

        # manual implementation of attention
        att = (q @ k.swapaxes(-2, -1)) * (1.0 / math.sqrt(self.n_head))
        bias = np.tril(np.ones((T, T), dtype=bool)) if mask is None else mask
        att = np.where(bias, att, float("-inf"))
        att = softmax(att, axis=-1)
        self.att = att
        y = att @ v  # (nh, T, T) x (nh, T, hs) -> (nh, T, hs)
        y = merge_heads(y)  # re-assemble all head outputs side by side

        # output projection
        return y @ self.c_proj


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    block = CausalSelfAttention(Wq, Wk, Wv, Wo, n_heads)
    y = block.forward(X, mask)
    return y, block.att
