"""The trusted reference as the checks and the mistakes call it.

Each wrapper calls ``solution.py`` (loaded once into the grader's own process) on float
copies of its inputs, so a check or a probe may hold whole numbers and the reference never
changes what it is given; the reference's own floating-point warnings are silenced.
Expected values are always computed *after* the submission's reply has arrived.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grader.authoring import here, reference_module

_HEAD = reference_module(here(__file__, "solution.py"))


def _floats(*arrays: Any) -> list[np.ndarray]:
    return [np.array(a, dtype=float) for a in arrays]


def row_stats(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        return _HEAD.row_stats(*_floats(X))


def layer_norm(X: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _HEAD.layer_norm(*_floats(X, gamma, beta), float(eps))


def rms_norm(X: np.ndarray, gamma: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _HEAD.rms_norm(*_floats(X, gamma), float(eps))


# What the reference answers to each graded function's calls (checks, diagnoses).
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "row_stats": row_stats,
    "layer_norm": layer_norm,
    "rms_norm": rms_norm,
}
