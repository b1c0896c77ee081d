# expect: none
"""A correct head, as the handout writes it: keepdims everywhere, layer_norm calls row_stats."""
import numpy as np


def row_stats(X):
    mean = np.mean(X, axis=1, keepdims=True)
    var = np.var(X, axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    x_hat = (X - mean) / np.sqrt(var + eps)
    return gamma * x_hat + beta


def rms_norm(X, gamma, eps=1e-5):
    rms = np.sqrt(np.mean(X**2, axis=1, keepdims=True) + eps)
    return X / rms * gamma
