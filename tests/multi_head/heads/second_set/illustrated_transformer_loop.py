# diagnosis: mha_softmax_no_keepdims, mha_mask_one_head
# style: Jay Alammar-style loop over heads with lists of score matrices and a hand-written row softmax
# notes: mha_softmax_no_keepdims: row_softmax (used by multi_head_attention for every head) divides by np.sum(exps, axis=-1) without keepdims, so it broadcasts along the wrong axis
# notes: mha_mask_one_head: multi_head_attention applies the mask only to scores[0], the first head's score matrix

import numpy as np


def softmax(x, axis=-1):
    # The lesson's softmax, complete: subtract the max along axis, exponentiate, normalise.
    x = x - x.max(axis=axis, keepdims=True)  # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def row_softmax(scores):
    """Softmax of each row of a 2-D score matrix."""
    exps = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    return exps / np.sum(exps, axis=-1)


def split_heads(X, n_heads):
    d_k = X.shape[1] // n_heads
    return np.array([X[:, i * d_k:(i + 1) * d_k] for i in range(n_heads)])


def merge_heads(H):
    return np.concatenate([H[i] for i in range(H.shape[0])], axis=1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    # Step 1: the queries, keys and values of every head
    Qs = split_heads(X @ Wq, n_heads)
    Ks = split_heads(X @ Wk, n_heads)
    Vs = split_heads(X @ Wv, n_heads)
    d_k = Qs.shape[2]

    # Step 2: the score of every query against every key, per head
    scores = [Qs[i] @ Ks[i].T / np.sqrt(d_k) for i in range(n_heads)]
    if mask is not None:
        scores[0] = np.where(mask, scores[0], -np.inf)

    # Step 3: softmax, then weigh the values
    weights = [row_softmax(s) for s in scores]
    Z = [weights[i] @ Vs[i] for i in range(n_heads)]

    # Step 4: concatenate the heads and multiply by W^O
    return merge_heads(np.array(Z)) @ Wo, np.array(weights)
