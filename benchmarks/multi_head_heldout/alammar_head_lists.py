# diagnosis: mha_mask_one_head, mha_scale_by_d_head, merge_heads_stacks_tokens
# style: Jay Alammar-style explicit loop over heads with Python lists, hstack-style concatenation inline
# notes: mha_mask_one_head: multi_head_attention masks after the loop with head_scores[-1] = np.where(mask, scores, -inf): only the last head is masked
# notes: mha_scale_by_d_head: multi_head_attention divides each head's scores by d_head instead of sqrt(d_head)
# notes: merge_heads_stacks_tokens: merge_heads is np.concatenate of the heads with the default axis 0, giving (n_heads * n, d_head) (multi_head_attention concatenates inline on axis 1 and does not call it)

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    heads = [X[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)]
    return np.array(heads)


def merge_heads(H):
    return np.concatenate([head for head in H])


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    d_head = Q.shape[2]

    head_scores = []
    for h in range(n_heads):
        scores = Q[h] @ K[h].T / d_head
        head_scores.append(scores)
    if mask is not None:
        head_scores[-1] = np.where(mask, scores, -np.inf)

    head_weights = []
    head_outputs = []
    for h in range(n_heads):
        weights = softmax(head_scores[h], axis=-1)
        head_weights.append(weights)
        head_outputs.append(weights @ V[h])

    Z = np.concatenate(head_outputs, axis=1)  # (n, n_heads * d_head)
    return Z @ Wo, np.array(head_weights)
