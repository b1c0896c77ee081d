# diagnosis: none
# mistake: attention: it soft-caps the scaled scores with 30 * tanh(scores / 30) (a Gemma-2 habit), which changes every weight and squashes large scores.
# uncatalogued: 1
# style: LLM port (Gemma-2 style) with a config dataclass and logit soft-capping
from dataclasses import dataclass

import numpy as np


@dataclass
class Config:
    attn_logit_softcapping: float = 30.0


CFG = Config()


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    e_x = np.exp(x - x_max)
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    head_dim = Q.shape[-1]
    attn_weights = np.matmul(Q, np.swapaxes(K, -1, -2)) * head_dim ** -0.5
    if CFG.attn_logit_softcapping is not None:
        cap = CFG.attn_logit_softcapping
        attn_weights = np.tanh(attn_weights / cap) * cap
    if mask is not None:
        attn_weights = np.where(mask, attn_weights, -np.inf)
    attn_weights = softmax(attn_weights, axis=-1)
    attn_output = np.matmul(attn_weights, V)
    return attn_output, attn_weights


def self_attention(X, Wq, Wk, Wv, mask=None):
    query_states = X @ Wq
    key_states = X @ Wk
    value_states = X @ Wv
    return attention(query_states, key_states, value_states, mask=mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=np.bool_))
