# expect: row_stats_sample_variance
import numpy as np


def row_stats(X):
    d = X.shape[1]
    mean = X.mean(axis=1, keepdims=True)
    var = ((X - mean) ** 2).sum(axis=1, keepdims=True) / (d - 1)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    x_hat = (X - mean) / np.sqrt(var + eps)
    return gamma * x_hat + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma
