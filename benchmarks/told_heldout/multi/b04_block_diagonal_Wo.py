# diagnosis: split_heads_reshape_only
# mistake: split_heads: it reshapes X straight to (n_heads, n, d_head) without a transpose.
# mistake: multi_head_attention: it applies only the diagonal d_head x d_head blocks of Wo to each head (a block-diagonal Wo), so the heads are never mixed.
# uncatalogued: 1
# style: "each head owns its slice of every weight" reasoning carried over to Wo, loop over heads
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n_heads, n, d_model // n_heads)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    n, d_model = X.shape
    d_head = d_model // n_heads
    Xq, Xk, Xv = X @ Wq, X @ Wk, X @ Wv
    out = np.zeros((n, d_model))
    A = np.zeros((n_heads, n, n))
    for h in range(n_heads):
        sl = slice(h * d_head, (h + 1) * d_head)
        o_h, A[h] = attention(Xq[:, sl], Xk[:, sl], Xv[:, sl], mask)
        out[:, sl] = o_h @ Wo[sl, sl]      # head h's own output projection
    return out, A
