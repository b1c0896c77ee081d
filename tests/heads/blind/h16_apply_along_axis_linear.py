"""
Head by someone used to PyTorch's nn.Linear, with an np.apply_along_axis softmax.

What is wrong:
- attention computes the scores as K @ Q.T, the transpose of Q @ K.T: row i holds
  key i against every query, so each token gets another token's weights (and the
  shapes only fit when n_q == n_k).
- self_attention projects with the transposed weights, X @ Wq.T etc. (nn.Linear
  stores weights as (out, in)): it raises unless the weights are square and is wrong
  even then.
softmax (np.apply_along_axis of a stable 1-D softmax) and causal_mask are fine.
"""
# diagnosis: scores_transposed, self_attention_transposes_weights
# style: PyTorch-habits port (F.linear-style x @ W.T), np.apply_along_axis softmax
import numpy as np


def softmax(x, axis=-1):
    def _softmax_1d(v):
        v = v - v.max()
        e = np.exp(v)
        return e / e.sum()

    return np.apply_along_axis(_softmax_1d, axis, x)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = K @ Q.T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    # like F.linear(x, weight): x @ weight.T
    Q = X @ Wq.T
    K = X @ Wk.T
    V = X @ Wv.T
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tril(np.full((n, n), True))
