# diagnosis: mha_weights_averaged, merge_heads_stacks_tokens
# style: Hugging Face BertSelfAttention (transpose_for_scores, context_layer permute/view) rewritten with reshape/transpose
# notes: mha_weights_averaged: multi_head_attention returns attention_probs.mean(axis=0), one (n, n) map averaged over heads
# notes: merge_heads_stacks_tokens: merge_heads concatenates the heads along axis 0, giving (n_heads * n, d_head) (multi_head_attention merges inline and does not call it)

import math

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def transpose_for_scores(x, num_attention_heads, attention_head_size):
    new_x_shape = x.shape[:-1] + (num_attention_heads, attention_head_size)
    x = x.reshape(new_x_shape)
    return x.transpose(1, 0, 2)


def split_heads(X, n_heads):
    return transpose_for_scores(X, n_heads, X.shape[-1] // n_heads)


def merge_heads(H):
    # put the heads back together
    return np.concatenate(H, axis=0)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    hidden_states = X
    all_head_size = hidden_states.shape[-1]
    attention_head_size = all_head_size // n_heads

    query_layer = transpose_for_scores(hidden_states @ Wq, n_heads, attention_head_size)
    key_layer = transpose_for_scores(hidden_states @ Wk, n_heads, attention_head_size)
    value_layer = transpose_for_scores(hidden_states @ Wv, n_heads, attention_head_size)

    # Take the dot product between "query" and "key" to get the raw attention scores.
    attention_scores = np.matmul(query_layer, key_layer.transpose(0, 2, 1))
    attention_scores = attention_scores / math.sqrt(attention_head_size)
    if mask is not None:
        attention_scores = np.where(mask, attention_scores, -np.inf)

    # Normalize the attention scores to probabilities.
    attention_probs = softmax(attention_scores, axis=-1)

    context_layer = np.matmul(attention_probs, value_layer)
    context_layer = context_layer.transpose(1, 0, 2)
    new_context_layer_shape = context_layer.shape[:-2] + (all_head_size,)
    context_layer = context_layer.reshape(new_context_layer_shape)

    # BertSelfOutput.dense
    outputs = context_layer @ Wo
    return outputs, attention_probs.mean(axis=0)
