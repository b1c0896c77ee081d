# diagnosis: none
# style: Hugging Face BartAttention-like code (self.scaling = head_dim ** -0.5, _shape() helper with view/transpose rewritten as reshape/transpose)
# notes: correct: the query is multiplied by head_dim ** -0.5 before the matmul (same numbers as dividing the scores); the mask is applied with np.where(..., -inf)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


class BartLikeAttention:
    """Multi-headed attention from 'Attention Is All You Need' paper"""

    def __init__(self, embed_dim, num_heads, q_proj, k_proj, v_proj, out_proj):
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise ValueError(
                f"embed_dim must be divisible by num_heads (got `embed_dim`: {self.embed_dim}"
                f" and `num_heads`: {num_heads})."
            )
        self.scaling = self.head_dim ** -0.5
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = q_proj, k_proj, v_proj, out_proj

    def _shape(self, tensor, seq_len):
        return tensor.reshape(seq_len, self.num_heads, self.head_dim).transpose(1, 0, 2)

    def forward(self, hidden_states, attention_mask=None):
        tgt_len, embed_dim = hidden_states.shape

        # get query proj
        query_states = (hidden_states @ self.q_proj) * self.scaling
        key_states = self._shape(hidden_states @ self.k_proj, tgt_len)
        value_states = self._shape(hidden_states @ self.v_proj, tgt_len)
        query_states = self._shape(query_states, tgt_len)

        attn_weights = query_states @ key_states.transpose(0, 2, 1)
        if attention_mask is not None:
            attn_weights = np.where(attention_mask[None, :, :], attn_weights, -np.inf)
        attn_weights = softmax(attn_weights, axis=-1)

        attn_output = attn_weights @ value_states
        attn_output = attn_output.transpose(1, 0, 2).reshape(tgt_len, embed_dim)
        attn_output = attn_output @ self.out_proj
        return attn_output, attn_weights


def split_heads(X, n_heads):
    seq_len, embed_dim = X.shape
    return X.reshape(seq_len, n_heads, embed_dim // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    num_heads, seq_len, head_dim = H.shape
    return H.transpose(1, 0, 2).reshape(seq_len, num_heads * head_dim)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    attn = BartLikeAttention(X.shape[1], n_heads, Wq, Wk, Wv, Wo)
    return attn.forward(X, mask)
