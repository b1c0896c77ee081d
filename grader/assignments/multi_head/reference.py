"""The multi-head reference, loaded in the trusted process to compute expected values.

Expected values are always computed *after* the submission's reply has arrived. Inputs
are turned into float arrays first (a probe or a check may hold whole numbers), and the
reference's own RuntimeWarnings (nan for a fully masked row) are silenced here.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from grader.authoring import reference_module
from grader.assignments.multi_head import REFERENCE_HEAD as HEAD


def _head() -> ModuleType:
    return reference_module(HEAD)


def _floats(*arrays: Any) -> list[np.ndarray]:
    return [np.asarray(a, dtype=float) for a in arrays]


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _head().softmax(np.asarray(x, dtype=float), axis=axis)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple[Any, Any]:
    """The lesson's head, ``(softmax(Q K^T / sqrt(d_k)) V, A)``; on a stack of heads too."""
    with np.errstate(all="ignore"):
        return _head().attention(*_floats(Q, K, V), mask)


def split_heads(X: np.ndarray, n_heads: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _head().split_heads(np.asarray(X, dtype=float), int(n_heads))


def merge_heads(H: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _head().merge_heads(np.asarray(H, dtype=float))


def multi_head_attention(
    X: np.ndarray,
    Wq: np.ndarray,
    Wk: np.ndarray,
    Wv: np.ndarray,
    Wo: np.ndarray,
    n_heads: int,
    mask: np.ndarray | None = None,
) -> tuple[Any, Any]:
    with np.errstate(all="ignore"):
        return _head().multi_head_attention(*_floats(X, Wq, Wk, Wv, Wo), int(n_heads), mask)


# What the reference answers to each graded function's calls (examples, diagnoses,
# pictures). softmax is the students' helper, not graded on its own.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "split_heads": split_heads,
    "merge_heads": merge_heads,
    "multi_head_attention": multi_head_attention,
}
