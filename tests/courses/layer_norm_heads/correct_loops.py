# expect: none
"""A correct head written with loops over rows and over columns, no keepdims anywhere."""
import math

import numpy as np


def row_stats(X):
    n, d = X.shape
    mean = np.zeros((n, 1))
    var = np.zeros((n, 1))
    for i in range(n):
        total = 0.0
        for j in range(d):
            total += X[i, j]
        m = total / d
        squares = 0.0
        for j in range(d):
            squares += (X[i, j] - m) ** 2
        mean[i, 0] = m
        var[i, 0] = squares / d
    return mean, var


def layer_norm(X, gamma, beta, eps=1e-5):
    n, d = X.shape
    mean, var = row_stats(X)
    out = np.empty((n, d))
    for i in range(n):
        std = math.sqrt(var[i, 0] + eps)
        for j in range(d):
            out[i, j] = gamma[j] * (X[i, j] - mean[i, 0]) / std + beta[j]
    return out


def rms_norm(X, gamma, eps=1e-5):
    n, d = X.shape
    out = np.empty((n, d))
    for i in range(n):
        ms = sum(x * x for x in X[i]) / d
        for j in range(d):
            out[i, j] = X[i, j] / math.sqrt(ms + eps) * gamma[j]
    return out
