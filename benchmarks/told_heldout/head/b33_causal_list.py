# diagnosis: self_attention_mask_zero_fill
# mistake: self_attention: it computes the head itself and sets masked scores to 0 instead of -inf.
# mistake: causal_mask: it returns a nested Python list (.tolist()) instead of a NumPy bool array.
# uncatalogued: 1
# style: student who serialises everything to JSON for the web demo
import json

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, 0.0)
    A = softmax(scores)
    return A @ V, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)).tolist()


def to_json(A):
    return json.dumps(np.asarray(A).tolist())
