"""The reference head, loaded in the trusted process to compute expected values.

Expected values are always computed *after* the submission's reply has arrived, and the
reference's own RuntimeWarnings (nan for a fully masked row) are silenced here.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from grader.authoring import reference_module
from grader.assignments.attention_head import REFERENCE_HEAD as HEAD


def _head() -> ModuleType:
    return reference_module(HEAD)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _head().softmax(np.asarray(x, dtype=float), axis=axis)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple[Any, Any]:
    with np.errstate(all="ignore"):
        return _head().attention(*(np.asarray(a, dtype=float) for a in (Q, K, V)), mask)


def self_attention(
    X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, mask: np.ndarray | None = None  # noqa: N803
) -> tuple[Any, Any]:
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n: int) -> np.ndarray:
    return _head().causal_mask(n)


# What the reference answers to each function's calls (examples, diagnoses, pictures).
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "softmax": softmax,
    "attention": attention,
    "self_attention": self_attention,
    "causal_mask": causal_mask,
}
