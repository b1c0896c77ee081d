# diagnosis: none
# mistake: multi_head_attention: it returns the weights computed before masking (kept for visualisation) while out uses the masked weights, so A ignores the mask.
# uncatalogued: 1
# style: interpretability notebook returning the "raw attention pattern" for plotting
import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    return np.array(np.split(X, n_heads, axis=1))


def merge_heads(H):
    return np.hstack(list(H))


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    pattern = softmax(scores, axis=-1)          # cache["pattern"] for the heatmaps
    if mask is not None:
        weights = softmax(np.where(mask, scores, -np.inf), axis=-1)
    else:
        weights = pattern
    out = merge_heads(weights @ V) @ Wo
    return out, pattern
