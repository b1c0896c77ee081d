"""Layer normalisation in NumPy.

Implement row_stats, layer_norm and rms_norm below, following the handout (README.md).
Keep their names and signatures: the grader calls them exactly as written here. Use
NumPy only.

Check your work at any time with:

    grader check layer_norm.py --assignment layer_norm

(or --assignment path/to/the/course/folder, where the course gives you its folder).
"""

import numpy as np


def row_stats(X):
    """Each row's mean and variance.

    X: a 2-D array (n, d): n rows (tokens) of d features.
    Returns (mean, var), both of shape (n, 1): mean[i, 0] is the mean of row i and
    var[i, 0] its population variance, the mean of (X[i] - mean[i, 0]) ** 2 (divide by d,
    not d - 1: np.var's default, ddof=0).
    """
    raise NotImplementedError("row_stats is not written yet")


def layer_norm(X, gamma, beta, eps=1e-5):
    """Layer normalisation of each row of X.

    X: (n, d); gamma, beta: (d,), one scale and one shift per column (feature).
    Each row is normalised with its own mean and variance (row_stats):
        x_hat = (X - mean) / sqrt(var + eps)
    and the result is gamma * x_hat + beta, shape (n, d). eps goes inside the square
    root: a row whose entries are all equal gives beta, not nan.
    Must not change X, gamma or beta.
    """
    raise NotImplementedError("layer_norm is not written yet")


def rms_norm(X, gamma, eps=1e-5):
    """RMS normalisation of each row of X (no mean subtracted, no beta).

    X: (n, d); gamma: (d,).
    Returns X / sqrt(mean(X ** 2 over the row) + eps) * gamma, shape (n, d).
    """
    raise NotImplementedError("rms_norm is not written yet")
