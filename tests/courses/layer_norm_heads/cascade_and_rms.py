# expect: row_stats_sample_variance, rms_norm_uses_variance
"""Two mistakes: a sample variance in row_stats (which layer_norm, right as written, calls),
and an rms_norm that divides by the standard deviation."""
import numpy as np


def row_stats(X):
    return np.mean(X, axis=1, keepdims=True), np.var(X, axis=1, ddof=1, keepdims=True)


def layer_norm(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / np.sqrt(var + eps) + beta


def rms_norm(X, gamma, eps=1e-5):
    return X / np.sqrt(np.var(X, axis=1, keepdims=True) + eps) * gamma
