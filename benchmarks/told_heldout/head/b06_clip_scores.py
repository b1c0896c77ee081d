# diagnosis: softmax_no_keepdims
# mistake: softmax: it takes the max and the sum without keepdims=True, so the reduced (n,) vectors broadcast against the columns instead of the rows.
# mistake: attention: it clips the scaled scores to [-5, 5] "for numerical safety", which flattens any large score and changes the weights.
# uncatalogued: 1
# style: course lab with "numerical safety" clipping and comments in the margin
import numpy as np

SCORE_CLIP = 5.0


def softmax(x, axis=-1):
    # subtract the max for stability
    x = x - np.max(x, axis=axis)
    e = np.exp(x)
    return e / np.sum(e, axis=axis)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.dot(Q, K.T) / np.sqrt(d_k)
    scores = np.clip(scores, -SCORE_CLIP, SCORE_CLIP)  # avoid huge exponentials
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.dot(weights, V), weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tri(n, dtype=bool)
