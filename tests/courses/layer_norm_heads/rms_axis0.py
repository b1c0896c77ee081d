# expect: rms_norm_over_columns
import numpy as np


def row_stats(X):
    mean = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    x_hat = (X - mean) / np.sqrt(var + eps)
    return gamma * x_hat + beta


def rms_norm(X, gamma, eps=1e-5):
    rms = np.sqrt(np.mean(np.square(X), axis=0) + eps)
    return gamma * X / rms
