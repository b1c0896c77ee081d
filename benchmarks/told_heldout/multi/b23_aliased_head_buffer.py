# diagnosis: none
# mistake: multi_head_attention: it appends the same preallocated buffer to its lists for every head and overwrites it in place, so all heads' outputs and weights end up equal to the last head's.
# uncatalogued: 1
# style: C-minded student reusing preallocated buffers with out= to avoid allocations
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    n, d_head = Q.shape[1], Q.shape[2]
    w_buf = np.empty((n, n))          # reused for every head
    o_buf = np.empty((n, d_head))
    weights, outputs = [], []
    for h in range(n_heads):
        s = Q[h] @ K[h].T / np.sqrt(d_head)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        w_buf[...] = softmax(s, axis=-1)
        np.matmul(w_buf, V[h], out=o_buf)
        weights.append(w_buf)
        outputs.append(o_buf)
    A = np.stack(weights)
    return merge_heads(np.stack(outputs)) @ Wo, A
