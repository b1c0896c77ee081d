"""Right in every check of softmax, attention and self_attention, wrong (no sqrt(d_k)) only
on the diagnosis's probes, which it tells apart by their values (one decimal each, as no
check draws them), and honestly wrong in causal_mask (np.triu), so that the probes run.
A function whose own checks all pass is told no mistake, whatever the probes show: this
head is told causal_mask's mistake only."""
# must-fail: causal_mask.values
# must-pass: attention.scaling, attention.matches_reference, self_attention.projections
# diagnosis: causal_mask_upper
# report-status: graded

import numpy as np

_PROBED = [False]


def _is_probe(*arrays):
    """Every input value a multiple of 0.001, some not of 1/16, all small: once seen, always."""
    if not _PROBED[0]:
        values = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in arrays if a is not None and np.asarray(a).dtype != bool])
        values = values[np.isfinite(values)]
        if values.size and np.all(np.abs(values * 1e3 - np.round(values * 1e3)) < 1e-7) \
                and np.any(np.abs(values * 16 - np.round(values * 16)) > 1e-9) and np.all(np.abs(values) < 100):
            _PROBED[0] = True
    return _PROBED[0]


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2)
    if not _is_probe(Q, K, V):
        scores = scores / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
