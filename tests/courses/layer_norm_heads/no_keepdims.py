# expect: row_stats_no_keepdims
import numpy as np


def row_stats(X):
    mean = np.mean(X, axis=1)
    var = np.mean((X - mean[:, None]) ** 2, axis=1)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    x_hat = (X - mean) / np.sqrt(var + eps)
    return gamma * x_hat + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma
