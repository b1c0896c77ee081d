"""
"No scipy needed" einsum head.

What is wrong:
- softmax subtracts one global maximum, np.max(x), instead of each row's own, so a
  row of small logits next to a row around 1000 underflows to 0/0 = nan.
- attention computes the output with np.einsum('ij,ik->jk', weights, V), which is
  weights.T @ V, not weights @ V (and it raises when n_q != n_k).
- self_attention calls attention(Q, K, V) without passing the mask on, so a causal
  mask has no effect.
causal_mask is fine (np.tril(...) == 1 is boolean).
"""
# diagnosis: softmax_global_max, weights_transposed, self_attention_drops_mask
# style: scipy-free einsum tutorial (hand-written softmax instead of scipy.special.softmax)
import numpy as np


def softmax(x, axis=-1):
    # scipy.special.softmax without scipy
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[1]
    scores = np.einsum('id,jd->ij', Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    out = np.einsum('ij,ik->jk', weights, V)
    return out, weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.einsum('nd,dk->nk', X, Wq)
    K = np.einsum('nd,dk->nk', X, Wk)
    V = np.einsum('nd,dv->nv', X, Wv)
    out, weights = attention(Q, K, V)
    return out, weights


def causal_mask(n):
    return np.tril(np.ones((n, n))) == 1
