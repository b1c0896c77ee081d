# diagnosis: none
# mistake: attention: it applies dropout (p=0.1, fixed seed) to the weights, as in training mode, so rows no longer sum to 1 and the output is rescaled.
# uncatalogued: 1
# style: PyTorch-to-NumPy port that kept nn.Dropout on the attention weights
import numpy as np

ATTN_PDROP = 0.1
_rng = None


def _dropout(x, p=ATTN_PDROP, seed=1234):
    # inverted dropout, fixed seed so runs are reproducible
    rng = np.random.default_rng(seed)
    keep = rng.random(x.shape) >= p
    return x * keep / (1.0 - p)


def softmax(x, axis=-1):
    x = x - np.amax(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scale = 1.0 / np.sqrt(Q.shape[-1])
    att = (Q @ K.T) * scale
    if mask is not None:
        att = np.where(mask, att, -np.inf)
    att = softmax(att, axis=-1)
    att = _dropout(att)               # self.attn_dropout(att)
    y = att @ V
    return y, att


def self_attention(X, Wq, Wk, Wv, mask=None):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    return attention(q, k, v, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)
