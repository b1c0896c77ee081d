"""
Head with a column softmax, a pre-LN self_attention and a strict causal mask.

What is wrong:
- attention calls softmax(S, axis=0): the softmax itself is correct, but it is
  taken down the columns, so the rows of P do not sum to 1.
- self_attention layer-normalises X (subtracts each row's mean and divides by its
  standard deviation, as a pre-LN transformer block does) before projecting, so the
  queries, keys and values are not X @ Wq, X @ Wk, X @ Wv.
- causal_mask uses np.tril(..., k=-1), leaving out the diagonal: no token may attend
  to itself and the first row is fully masked.
softmax is fine.
"""
# diagnosis: attention_softmax_axis, causal_mask_strict
# unnamed: self_attention layer-normalises X (pre-LN, per-row mean/std normalisation) before the projections
# style: linear-algebra course notes (S and P matrices, column-oriented thinking) with a pre-LN transformer-block self_attention
import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    expx = np.exp(shifted)
    return expx / np.sum(expx, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[1]
    S = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = softmax(S, axis=0)
    return P @ V, P


def _layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def self_attention(X, Wq, Wk, Wv, mask=None):
    H = _layer_norm(X)  # pre-LN, as in GPT-2 blocks
    Q = H @ Wq
    K = H @ Wk
    V = H @ Wv
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)
