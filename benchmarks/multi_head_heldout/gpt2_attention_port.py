# diagnosis: mha_mask_large_negative
# style: Hugging Face GPT2Attention port (_split_heads / _merge_heads / _attn, mask_value = finfo(dtype).min)
# notes: mha_mask_large_negative: _attn (called by multi_head_attention) uses np.where(mask, w, np.finfo(w.dtype).min) instead of -inf, so a fully masked row becomes uniform instead of nan

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _split_heads(tensor, num_heads, attn_head_size):
    """Splits hidden_size dim into attn_head_size and num_heads."""
    new_shape = tensor.shape[:-1] + (num_heads, attn_head_size)
    tensor = tensor.reshape(new_shape)
    return tensor.transpose(1, 0, 2)  # (head, seq_length, head_features)


def _merge_heads(tensor, num_heads, attn_head_size):
    """Merges attn_head_size dim and num_attn_heads dim into hidden_size."""
    tensor = tensor.transpose(1, 0, 2)
    new_shape = tensor.shape[:-2] + (num_heads * attn_head_size,)
    return tensor.reshape(new_shape)


def _attn(query, key, value, attention_mask=None):
    attn_weights = query @ key.swapaxes(-1, -2)
    attn_weights = attn_weights / (value.shape[-1] ** 0.5)
    if attention_mask is not None:
        # Need to be a tensor, otherwise we get error: `RuntimeError: expected scalar type float but found double`.
        mask_value = np.finfo(attn_weights.dtype).min
        attn_weights = np.where(attention_mask, attn_weights, mask_value)
    attn_weights = softmax(attn_weights, axis=-1)
    attn_output = attn_weights @ value
    return attn_output, attn_weights


def split_heads(X, n_heads):
    return _split_heads(X, n_heads, X.shape[-1] // n_heads)


def merge_heads(H):
    return _merge_heads(H, H.shape[0], H.shape[2])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    head_dim = X.shape[-1] // n_heads
    query = _split_heads(X @ Wq, n_heads, head_dim)
    key = _split_heads(X @ Wk, n_heads, head_dim)
    value = _split_heads(X @ Wv, n_heads, head_dim)
    attn_output, attn_weights = _attn(query, key, value, mask)
    attn_output = _merge_heads(attn_output, n_heads, head_dim)
    attn_output = attn_output @ Wo  # c_proj
    return attn_output, attn_weights
