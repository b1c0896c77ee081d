"""
Head lifted from training code: attention dropout left on, additive causal mask.

What is wrong:
- attention scales with floor division, (Q @ K.T) // sqrt(d_k), which rounds every
  scaled score down to a whole number.
- attention applies dropout (p=0.1, fresh random numbers every call) to the weights,
  so the same call gives different answers and the weights are not the softmax.
- causal_mask returns an additive mask, 0.0 where a token may attend and -inf
  elsewhere, instead of booleans.
softmax and self_attention are fine.
"""
# diagnosis: floor_division, nondeterministic, causal_mask_additive
# style: training-loop code (module-level RNG, attention dropout, additive -inf mask)
import numpy as np

_rng = np.random.default_rng()


def _dropout(a, p=0.1):
    keep = _rng.random(a.shape) >= p
    return a * keep / (1.0 - p)


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) // np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    A = _dropout(A, p=0.1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask=mask)


def causal_mask(n):
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)
