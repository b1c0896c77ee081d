"""
Head that masks in place with np.putmask.

What is wrong:
- softmax centres the logits by subtracting each row's mean instead of its maximum;
  the mean does not bound the exponentials, so a row spanning about +-1000
  overflows to nan, and a row holding -inf (a masked score) becomes nan.
- attention calls np.putmask(scores, mask, -np.inf), which writes -inf where the
  mask is True: it blocks exactly the keys a query may see and keeps the others.
- causal_mask uses np.triu, so each token sees itself and the future instead of the
  past.
self_attention is fine.
"""
# diagnosis: softmax_subtracts_mean, mask_inverted, causal_mask_upper
# style: in-place numpy tricks (np.putmask, centred logits), short answer-sheet code
import numpy as np


def softmax(x, axis=-1):
    z = x - np.mean(x, axis=axis, keepdims=True)  # centre the logits
    ez = np.exp(z)
    return ez / np.sum(ez, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        np.putmask(scores, mask, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
