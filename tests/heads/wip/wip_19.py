"""Work in progress: attention and self_attention written, softmax and mask not.

Finished: attention divides the scores by d_k instead of sqrt(d_k) (mask with -inf and the
(out, A) return are right; it calls the unfinished softmax);
self_attention projects correctly but calls attention without passing the mask on.
Unfinished: softmax is `...`; causal_mask is `pass`.
"""
# unfinished: softmax, causal_mask
# diagnosis: scale_by_dk, self_attention_drops_mask
import numpy as np


def softmax(x, axis=-1):
    ...


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / d_k
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    return attention(Q, K, V)


def causal_mask(n):
    pass
