# expect: none
"""Half written: row_stats and layer_norm done, rms_norm not started yet (the template's stub)."""
import numpy as np


def row_stats(X):
    return X.mean(axis=1, keepdims=True), X.var(axis=1, keepdims=True)


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / np.sqrt(var + eps) + beta


def rms_norm(X, gamma, eps=1e-5):
    raise NotImplementedError("rms_norm is not written yet")
