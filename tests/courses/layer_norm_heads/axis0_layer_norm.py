# expect: layer_norm_over_columns
import numpy as np


def row_stats(X):
    mean = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    # normalise each feature over the batch
    mu = X.mean(axis=0)
    sigma2 = X.var(axis=0)
    return gamma * (X - mu) / np.sqrt(sigma2 + eps) + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma
