# expect: none
"""A correct head that computes in float32, as a GPU framework would."""
import numpy as np


def row_stats(X):
    X = np.asarray(X, dtype=np.float32)
    mean = X.mean(axis=1, keepdims=True)
    var = np.square(X - mean).mean(axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    X = np.asarray(X, dtype=np.float32)
    mean, var = row_stats(X)
    inv_std = np.float32(1.0) / np.sqrt(var + np.float32(eps))
    return (X - mean) * inv_std * gamma.astype(np.float32) + beta.astype(np.float32)


def rms_norm(X, gamma, eps=1e-5):
    X = X.astype(np.float32)
    inv_rms = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + eps)
    return (X * inv_rms * gamma).astype(np.float32)
