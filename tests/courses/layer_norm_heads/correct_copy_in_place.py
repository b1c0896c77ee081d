# expect: none
"""A correct head that works in place, on copies of its inputs: the caller's arrays stay as they were."""
import numpy as np


def row_stats(X):
    mean = X.sum(axis=1, keepdims=True) / X.shape[1]
    centred = X - mean
    centred **= 2
    return mean, centred.sum(axis=1, keepdims=True) / X.shape[1]


def layer_norm(X, gamma, beta, eps=1e-5):
    out = X.copy()
    mean, var = row_stats(out)
    out -= mean
    out /= np.sqrt(var + eps)
    out *= gamma
    out += beta
    return out


def rms_norm(X, gamma, eps=1e-5):
    out = np.array(X, dtype=float)
    out /= np.sqrt(np.einsum("ij,ij->i", X, X) / X.shape[1] + eps)[:, None]
    out *= gamma
    return out
