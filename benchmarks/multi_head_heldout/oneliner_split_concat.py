# diagnosis: none
# style: terse one-liners (walrus softmax, np.split + np.stack, np.concatenate of the head stack along axis 1)
# notes: correct: np.concatenate(H, axis=1) iterates over the heads and puts them side by side; np.where(mask, S, -inf) broadcasts over heads

import numpy as np


def softmax(x, axis=-1): return (e := np.exp(x - x.max(axis, keepdims=True))) / e.sum(axis, keepdims=True)


def split_heads(X, n_heads): return np.stack(np.split(X, n_heads, axis=1))


def merge_heads(H): return np.concatenate(H, axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    S = Q @ K.swapaxes(1, 2) / np.sqrt(Q.shape[2])
    A = softmax(S if mask is None else np.where(mask, S, -np.inf))
    return merge_heads(A @ V) @ Wo, A
