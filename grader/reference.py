"""The reference head, loaded in the trusted process to compute expected values.

Expected values are always computed *after* the submission's reply has arrived, and the
reference's own RuntimeWarnings (nan for a fully masked row) are silenced here.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from grader.resources import REFERENCE_HEAD, project_file


@cache
def _head() -> ModuleType:
    path = project_file(REFERENCE_HEAD)
    spec = importlib.util.spec_from_file_location("grader_reference_head", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _head().softmax(np.asarray(x, dtype=float), axis=axis)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple[Any, Any]:
    with np.errstate(all="ignore"):
        return _head().attention(*(np.asarray(a, dtype=float) for a in (Q, K, V)), mask)


def causal_mask(n: int) -> np.ndarray:
    return _head().causal_mask(n)
