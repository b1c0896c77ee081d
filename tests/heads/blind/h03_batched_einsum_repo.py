"""
From-scratch transformer repo code, written for batched tensors.

What is wrong:
- attention is written for a leading batch axis: np.einsum('bqd,bkd->bqk', ...) and
  'bqk,bkv->bqv' need 3-D arrays, so it raises on the lesson's 2-D (n, d) inputs.
- attention also fills masked scores with -1e9 (np.where(mask == 0, -1e9, scores))
  instead of -inf: a fully masked row gets uniform weights instead of nan.
- causal_mask is the Annotated-Transformer `subsequent_mask`: its True/False values
  are right (True where j <= i) but it returns shape (1, n, n) with a leading batch
  axis instead of (n, n).
softmax and self_attention are fine.
"""
# diagnosis: attention_needs_batch_axis, mask_large_negative
# unnamed: causal_mask returns an array of shape (1, n, n) (extra leading batch axis) instead of (n, n)
# style: from-scratch transformer repo (Annotated-Transformer port), einsum with a batch axis, -1e9 fill, subsequent_mask
import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    e_x = np.exp(x - x_max)
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention.

    Q: (batch, n_q, d_k), K: (batch, n_k, d_k), V: (batch, n_k, d_v)
    mask: broadcastable to (batch, n_q, n_k), 0/False = do not attend.
    """
    d_k = Q.shape[-1]
    scores = np.einsum('bqd,bkd->bqk', Q, K) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores, axis=-1)
    return np.einsum('bqk,bkv->bqv', p_attn, V), p_attn


def self_attention(X, Wq, Wk, Wv, mask=None):
    query, key, value = X @ Wq, X @ Wk, X @ Wv
    return attention(query, key, value, mask=mask)


def causal_mask(n):
    """Mask out subsequent positions."""
    attn_shape = (1, n, n)
    subsequent = np.triu(np.ones(attn_shape), k=1).astype('uint8')
    return subsequent == 0
