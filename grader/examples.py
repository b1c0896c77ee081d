"""Recorded examples, so a passing check costs calls to the submission, not generation.

Derandomized Hypothesis draws the same examples, in the same order, for every
submission until one of them fails: what it draws next depends on its seed (derived
from the check's own source) and on earlier draws, never on the answers of a
submission that keeps passing. So the examples are recorded once, by running every
check against the reference head in this process, and the plugin replays them against
each submission. A check passes only when every recorded example passes; at the first
failure the plugin runs the live Hypothesis check instead, which meets the same failure
and shrinks it, so grades and counterexamples are exactly those of a live run.

Recordings are cached on disk (one file per check in the wire format, no pickles) under a key made of
everything that can change the draws: the sources of the checks and strategies, and
the versions of the grader, Hypothesis, numpy and Python.
"""

from __future__ import annotations

import copy
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
import numpy as np

from grader import __version__, reference, wire
from grader.proxy import Reply

PACKAGE = Path(__file__).resolve().parent
DRAW_SOURCES = sorted((PACKAGE / "checks").glob("*.py")) + [PACKAGE / "strategies.py"]

Example = dict[str, Any]


class ReferenceSubmission:
    """Stands in for a submission: the reference head answers in this process, and every
    example's drawn arguments are kept."""

    def __init__(self) -> None:
        self.drawn: list[Example] = []
        self.example_calls: list = []

    def begin_example(self, drawn: Example | None = None) -> None:
        self.drawn.append(copy.deepcopy(drawn or {}))

    def softmax(self, x: np.ndarray, axis: int | None = None) -> np.ndarray:
        return reference.softmax(x) if axis is None else reference.softmax(x, axis=axis)

    def attention(self, Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> tuple:
        return reference.attention(Q, K, V, mask)

    def self_attention(
        self, X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, mask: np.ndarray | None = None
    ) -> tuple:
        return reference.attention(X @ Wq, X @ Wk, X @ Wv, mask)

    def causal_mask(self, n: int) -> np.ndarray:
        return reference.causal_mask(n)

    def call(self, function: str, args: list[Any], kwargs: dict[str, Any] | None = None, return_args: bool = False) -> Reply:
        value = getattr(self, function)(*args, **(kwargs or {}))
        return Reply(value, [copy.deepcopy(arg) for arg in args] if return_args else [])


def cache_key() -> str:
    digest = hashlib.sha256()
    for part in (__version__, hypothesis.__version__, np.__version__, sys.version.split()[0]):
        digest.update(part.encode() + b"\0")
    for source in DRAW_SOURCES:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def record(test: Callable) -> list[Example] | None:
    """The examples a Hypothesis check draws while the reference passes it, or None."""
    if not hasattr(test, "hypothesis"):
        return None
    stand_in = ReferenceSubmission()
    try:
        test(submission=stand_in)
    except Exception:  # the reference should pass every check; if not, run it live
        return None
    return stand_in.drawn


_LOADED: dict[Path, list[Example] | None] = {}


def recorded_examples(tests: dict[str, Callable], folder: Path | None) -> dict[str, list[Example]]:
    """Examples for every Hypothesis check in ``tests``, from the cache or recorded now.

    Loaded recordings stay in memory: a check process that grades many submissions
    reads each file once.
    """
    where = folder / cache_key() if folder is not None else None
    found = {}
    for check_id, test in tests.items():
        path = where / f"{check_id}.examples" if where is not None else None
        examples = _LOADED.get(path) if path is not None else None
        if examples is None and path is not None:
            examples = _LOADED[path] = _load(path)
        if examples is None:
            examples = record(test)
            if examples is not None and path is not None:
                _save(path, examples)
                _LOADED[path] = examples
        if examples is not None:
            found[check_id] = examples
    return found


def _encode(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"$array": len(arrays) - 1}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(item, arrays) for item in value]}
    if value is None or type(value) in (bool, int, float):
        return value
    raise TypeError(f"cannot record a drawn {type(value).__name__}")


def _save(path: Path, examples: list[Example]) -> None:
    # The wire format (a JSON header and raw arrays): no pickles, and one read per file.
    arrays: list[np.ndarray] = []
    try:
        manifest = [{name: _encode(value, arrays) for name, value in example.items()} for example in examples]
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(wire.encode({"examples": manifest}, arrays))
        os.replace(temporary, path)
    except (OSError, TypeError):
        pass  # no cache here: the next run records again, which costs time, not correctness


def _load(path: Path) -> list[Example] | None:
    try:
        with open(path, "rb") as stream:
            header, arrays = wire.read_frame(stream.fileno())
        for array in arrays:
            array.flags.writeable = False  # shared by every submission this process grades
        return [
            {name: wire.unpack(value, arrays) for name, value in example.items()}
            for example in header["examples"]
        ]
    except (OSError, wire.WireError, KeyError, TypeError, AttributeError):
        return None
