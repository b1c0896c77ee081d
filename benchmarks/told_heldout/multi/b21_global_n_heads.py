# diagnosis: none
# mistake: multi_head_attention: it splits with the config constant N_HEADS = 2 instead of its n_heads argument, so any other number of heads is computed as two heads (or raises when 2 does not divide d_model).
# uncatalogued: 1
# style: config-driven model code (a GPTConfig-like dict) with the argument shadowed by the global
import numpy as np

config = {"n_embd": 4, "n_head": 2}
N_HEADS = config["n_head"]


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    assert d_model % n_heads == 0, "d_model must be a multiple of n_heads"
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    q = split_heads(X @ Wq, N_HEADS)
    k = split_heads(X @ Wk, N_HEADS)
    v = split_heads(X @ Wv, N_HEADS)
    att = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if mask is not None:
        att = np.where(mask, att, -np.inf)
    att = softmax(att, axis=-1)
    return merge_heads(att @ v) @ Wo, att
