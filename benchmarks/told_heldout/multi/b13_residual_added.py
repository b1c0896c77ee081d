# diagnosis: split_heads_tokens_first
# mistake: split_heads: it returns shape (n, n_heads, d_head), without moving the heads axis first.
# mistake: multi_head_attention: it adds the residual X to the output (X + merged @ Wo), as a transformer block does, so out is off by X.
# uncatalogued: 1
# style: GPT-2 block port where x = x + attn(ln(x)) leaked into the attention function
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    T, C = X.shape
    return X.reshape(T, n_heads, C // n_heads)


def merge_heads(H):
    nh, T, hs = H.shape
    return H.transpose(1, 0, 2).reshape(T, nh * hs)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    T, C = X.shape
    hs = C // n_heads
    q = (X @ Wq).reshape(T, n_heads, hs).transpose(1, 0, 2)
    k = (X @ Wk).reshape(T, n_heads, hs).transpose(1, 0, 2)
    v = (X @ Wv).reshape(T, n_heads, hs).transpose(1, 0, 2)
    att = q @ k.transpose(0, 2, 1) * (1.0 / np.sqrt(hs))
    if mask is not None:
        att = np.where(mask, att, -np.inf)
    att = softmax(att, axis=-1)
    y = merge_heads(att @ v)
    y = y @ Wo           # c_proj
    return X + y, att    # residual
