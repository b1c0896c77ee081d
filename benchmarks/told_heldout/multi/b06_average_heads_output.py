# diagnosis: merge_heads_stacks_tokens
# mistake: merge_heads: it concatenates the heads along axis 0, giving (n_heads * n, d_head).
# mistake: multi_head_attention: it averages the heads' projected outputs (sums head h's output times its rows of Wo and divides by n_heads), so out is 1/n_heads of the right answer.
# uncatalogued: 1
# style: "ensemble of heads" intuition, loop with per-head output projection rows
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.stack(np.split(X, n_heads, axis=-1), axis=0)


def merge_heads(H):
    return np.concatenate(H)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]
    A_all = []
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        s = Q[h] @ K[h].T / np.sqrt(d_head)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        a = softmax(s)
        A_all.append(a)
        out += (a @ V[h]) @ Wo[h * d_head:(h + 1) * d_head]
    out = out / n_heads        # average the heads, like an ensemble
    return out, np.array(A_all)
