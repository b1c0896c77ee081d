# expect: row_stats_over_columns
import numpy as np


def row_stats(X):
    # mean and variance of every feature
    return np.mean(X, axis=0), np.var(X, axis=0)


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    x_hat = (X - mean) / np.sqrt(var + eps)
    return gamma * x_hat + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma
