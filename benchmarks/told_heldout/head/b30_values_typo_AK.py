# diagnosis: softmax_no_max_shift, self_attention_transposes_weights, causal_mask_upper
# mistake: softmax: it exponentiates without subtracting the row max, so large scores overflow.
# mistake: attention: it averages the keys instead of the values (out = A @ K), so out is wrong and has d_k columns instead of d_v.
# mistake: self_attention: it projects with the transposed weights (X @ Wq.T and likewise).
# mistake: causal_mask: it keeps the upper triangle (np.triu).
# uncatalogued: 1
# style: rushed student, single-letter names, several slips in one sitting
import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=-1, keepdims=True)
    return a @ K, a


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq.T, X @ Wk.T, X @ Wv.T, mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
