"""How far a correct head computing in float32 may be from the float64 reference.

Layer normalisation magnifies rounding on a row of small variance: x_hat = (X - mean) /
sqrt(var + eps) divides the rounding of X and of its mean (about 1e-7 of their size, in
float32) by sqrt(var + eps), which is as small as sqrt(eps), about 0.003. A correct float32
head is then up to about 1e-4 off on such a row, while on a row of variance about 1 it is
off by 1e-7. The checks that compare values of x_hat allow each row that much more than
their usual tolerance, and no more: every known mistake is off by far more.
"""

from __future__ import annotations

import numpy as np

# Generous for float32 (machine epsilon 1.2e-7): X, its mean and X - mean each round.
FLOAT32_ROUNDING = 1e-6


def x_hat_slack(X: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Per row of X, what rounding X to float32 may change in that row of x_hat."""
    X = np.asarray(X, dtype=float)
    var = X.var(axis=1)
    return FLOAT32_ROUNDING * np.abs(X).max(axis=1) / np.sqrt(var + eps)
