# diagnosis: split_heads_reshape_only
# mistake: split_heads: it reshapes X straight to (n_heads, n, d_head) without a transpose.
# mistake: multi_head_attention: its helper tests the mask with `if mask:`, which raises "truth value of an array is ambiguous" for every mask with more than one entry.
# uncatalogued: 1
# style: beginner reusing the lesson's head as a helper, Python truthiness on arrays
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n_heads, n, d_model // n_heads)


def merge_heads(H):
    return np.concatenate(list(H), axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    Qf, Kf, Vf = X @ Wq, X @ Wk, X @ Wv
    outs, As = [], []
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        o, a = attention(Qf[:, c], Kf[:, c], Vf[:, c], mask)
        outs.append(o)
        As.append(a)
    return np.concatenate(outs, axis=1) @ Wo, np.stack(As)
