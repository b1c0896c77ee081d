# expect: layer_norm_divides_by_variance
import numpy as np


def row_stats(X):
    mean = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * ((X - mean) / (var + eps)) + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma
