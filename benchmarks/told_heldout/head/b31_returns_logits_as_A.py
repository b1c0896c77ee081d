# diagnosis: causal_mask_not_bool
# mistake: attention: it returns the scaled (masked) scores as A, the pre-softmax logits, instead of the softmax weights; out is computed from the weights.
# mistake: causal_mask: it returns an int 0/1 matrix instead of a bool array.
# uncatalogued: 1
# style: HuggingFace-style return of "attention scores" confused with attention probabilities
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    attn_scores = np.matmul(Q, K.T) / np.sqrt(Q.shape[-1])
    if mask is not None:
        attn_scores = np.where(mask, attn_scores, -np.inf)
    attn_probs = softmax(attn_scores, axis=-1)
    context = np.matmul(attn_probs, V)
    outputs = (context, attn_scores)   # (context_layer, attention_scores)
    return outputs


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(np.matmul(X, Wq), np.matmul(X, Wk), np.matmul(X, Wv), mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=int))
