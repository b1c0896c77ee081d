# expect: layer_norm_eps_outside_sqrt, rms_norm_no_sqrt
import numpy as np


def row_stats(X):
    mean = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / (np.sqrt(var) + eps) + beta


def rms_norm(X, gamma, eps=1e-5):
    return gamma * X / (np.mean(X ** 2, axis=1, keepdims=True) + eps)
