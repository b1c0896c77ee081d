# diagnosis: none
# mistake: attention: it returns the weights computed before masking (kept "for plotting") while out uses the masked weights, so A ignores the mask.
# uncatalogued: 1
# style: visualisation notebook that keeps the raw attention map for a heatmap
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    attn_map = softmax(scores, axis=-1)      # raw map, nice for plt.imshow
    if mask is not None:
        masked = np.where(mask, scores, -np.inf)
        weights = softmax(masked, axis=-1)
    else:
        weights = attn_map
    out = weights @ V
    return out, attn_map


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def plot_attention(A, tokens):  # pragma: no cover - only used in the notebook
    import matplotlib.pyplot as plt
    plt.imshow(A, cmap="viridis")
    plt.xticks(range(len(tokens)), tokens)
    plt.yticks(range(len(tokens)), tokens)
    plt.colorbar()
    plt.show()
