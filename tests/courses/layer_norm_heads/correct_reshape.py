# expect: none
"""A correct head that reshapes instead of keepdims, computes layer_norm inline with np.std,
and takes the RMS from np.linalg.norm."""
import numpy as np


def row_stats(X):
    n = X.shape[0]
    mean = X.mean(axis=1).reshape(n, 1)
    var = X.var(axis=1).reshape(-1, 1)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mu = X.mean(axis=-1)[:, None]
    sigma = np.sqrt(X.std(axis=-1) ** 2 + eps)[:, None]
    return (X - mu) / sigma * gamma.reshape(1, -1) + beta.reshape(1, -1)


def rms_norm(X, gamma, eps=1e-5):
    d = X.shape[1]
    rms = np.sqrt(np.linalg.norm(X, axis=1) ** 2 / d + eps)
    return gamma * X / rms[:, np.newaxis]
