# diagnosis: mha_mask_large_negative
# mistake: merge_heads: it builds the columns by popping heads off the end of a list, so the heads land in reverse order (head h in the last block minus h).
# mistake: multi_head_attention: masked scores are set to -1e9 instead of -inf, so a fully masked row gets uniform weights instead of nan.
# uncatalogued: 1
# style: list-as-stack student code with while loops and pop()
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    return np.array([X[:, i * d_head:(i + 1) * d_head] for i in range(n_heads)])


def merge_heads(H):
    stack = list(H)
    columns = []
    while stack:
        columns.append(stack.pop())
    return np.concatenate(columns, axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.transpose(K, (0, 2, 1)) / np.sqrt(Q.shape[2])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    A = softmax(scores, axis=-1)
    heads = [A[h] @ V[h] for h in range(n_heads)]
    out = np.concatenate(heads, axis=1) @ Wo
    return out, A
