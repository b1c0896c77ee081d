"""softmax reduces along the axis it is given but puts the reduced dimension back as the LAST
axis ([..., None]) instead of keepdims, so only axis=-1 is right (axis=0 on a square array
subtracts and divides by the wrong entries). attention computes np.einsum('id,jd->ij', K, Q),
that is K Q^T, the transpose of the score matrix, which only agrees when Q and K are equal.
causal_mask is np.tri(n, k=-1, dtype=bool): strictly below the diagonal, so a token may not
attend to itself."""
# must-fail: softmax.axis, attention.matches_reference, causal_mask.values
# diagnosis: softmax_reexpands_last_axis, scores_transposed, causal_mask_strict
# style: vanhao-le/PVCD-Pytorch/chip/utils.py

import numpy as np


def softmax(scores, axis=-1):
    es = np.exp(scores - scores.max(axis=axis)[..., None])
    return es / es.sum(axis=axis)[..., None]


def attention(Q, K, V, mask=None):
    s = np.einsum("id,jd->ij", K, Q) / np.sqrt(Q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = softmax(s)
    return np.einsum("ij,jv->iv", w, V), w


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q = np.einsum("nd,dk->nk", X, Wq)
    K = np.einsum("nd,dk->nk", X, Wk)
    V = np.einsum("nd,dv->nv", X, Wv)
    return attention(Q, K, V, mask)


def causal_mask(n):
    return np.tri(n, k=-1, dtype=bool)
