# diagnosis: mha_weights_averaged
# mistake: split_heads: it splits along axis 0 (np.array_split(X, n_heads, axis=0)), cutting the tokens into groups instead of the columns into heads.
# mistake: multi_head_attention: it returns the heads' weights averaged into one (n, n) matrix.
# uncatalogued: 1
# style: student who mixed up the axis of np.split, returns averaged attention "like the paper's figures"
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.stack(np.array_split(X, n_heads, axis=0))


def merge_heads(H):
    return np.concatenate([h for h in H], axis=-1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    Qf, Kf, Vf = X @ Wq, X @ Wk, X @ Wv
    Q = np.stack([Qf[:, i * d_head:(i + 1) * d_head] for i in range(n_heads)])
    K = np.stack([Kf[:, i * d_head:(i + 1) * d_head] for i in range(n_heads)])
    V = np.stack([Vf[:, i * d_head:(i + 1) * d_head] for i in range(n_heads)])
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    out = merge_heads(A @ V) @ Wo
    return out, A.mean(axis=0)
