"""softmax is np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True): always axis 1 whatever
axis it is given, and no max shift (large logits overflow). attention takes
d_k = K.shape[0], which is the number of keys rather than their width, so the scores are
divided by the square root of the token count."""
# must-fail: softmax.axis, softmax.large_logits, attention.worked_example, attention.scaling, attention.matches_reference
# diagnosis: softmax_fixed_axis, softmax_no_max_shift, scale_wrong_dim
# style: Furvos/self_attention/test_attention.py

import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = np.dot(Q, K.T)

    # d_k === dimension of the key vectors
    d_k = K.shape[0]

    scaled_scores = scores / np.sqrt(d_k)
    if mask is not None:
        scaled_scores = np.where(mask, scaled_scores, -np.inf)

    attention_weights = softmax(scaled_scores)
    self_attention_output = np.dot(attention_weights, V)
    return self_attention_output, attention_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
