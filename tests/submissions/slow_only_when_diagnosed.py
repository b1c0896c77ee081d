"""The lesson's head with np.triu in causal_mask (so it is diagnosed), whose attention
takes 1.5 s a call once the checks are over (the diagnosis's probes, with values of one
decimal, come only then): a head that is slow where only its diagnosis looks."""

import time

import numpy as np

_DIAGNOSED = [False]


def _probe_values(*arrays):
    values = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in arrays if np.asarray(a).dtype != bool])
    values = values[np.isfinite(values)]
    return bool(values.size) and bool(np.all(np.abs(values * 10 - np.round(values * 10)) < 1e-9)) and bool(
        np.any(np.abs(values * 16 - np.round(values * 16)) > 1e-9)
    )


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    _DIAGNOSED[0] = _DIAGNOSED[0] or _probe_values(Q, K, V)
    if _DIAGNOSED[0]:
        time.sleep(1.5)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
