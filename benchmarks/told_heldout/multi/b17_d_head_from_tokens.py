# diagnosis: merge_heads_interleaved, mha_projections_transposed
# mistake: split_heads: it computes d_head from the number of tokens (X.shape[0] // n_heads) instead of d_model, so the head slices have the wrong width whenever n != d_model.
# mistake: merge_heads: it transposes to (n, d_head, n_heads) before reshaping, interleaving the heads' columns.
# mistake: multi_head_attention: it projects with the transposed weights (X @ Wq.T and likewise).
# uncatalogued: 1
# style: shape-juggling student, tuple unpacking of the wrong axis, loop over slices
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = len(X) // n_heads
    heads = []
    for h in range(n_heads):
        heads.append(X[:, h * d_head:(h + 1) * d_head])
    return np.array(heads)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 2, 0).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    Qf, Kf, Vf = X @ Wq.T, X @ Wk.T, X @ Wv.T
    Q = Qf.reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = Kf.reshape(n, n_heads, d_head).transpose(1, 0, 2)
    V = Vf.reshape(n, n_heads, d_head).transpose(1, 0, 2)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    merged = (A @ V).transpose(1, 0, 2).reshape(n, d_model)
    return merged @ Wo.T, A
