# diagnosis: self_attention_rounds_weights
# mistake: attention: its half-finished _row_normalise helper divides the exponentials by the row max instead of the row sum, so each row's largest weight is 1 instead of the row summing to 1.
# mistake: self_attention: it computes the head itself and rounds the weights to 4 decimals.
# uncatalogued: 1
# style: half-finished helpers with TODOs and a VERBOSE print flag, written the night before the deadline
import numpy as np

VERBOSE = False


def _log(*args):
    if VERBOSE:
        print("[attention]", *args)


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def _row_normalise(e):
    # TODO: check this against softmax() -- max or sum?
    return e / e.max(axis=-1, keepdims=True)


def _apply_mask(scores, mask):
    # TODO: support additive (0 / -inf) masks too
    if mask is None:
        return scores
    return np.where(mask, scores, -np.inf)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = _apply_mask(scores, mask)
    _log("scores", scores.shape)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    A = _row_normalise(e)
    _log("row sums", A.sum(axis=-1))
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = _apply_mask(Q @ K.T / np.sqrt(Q.shape[-1]), mask)
    A = np.round(softmax(scores, axis=-1), 4)
    return A @ V, A


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
