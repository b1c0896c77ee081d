"""Recorded examples, so a passing check costs calls to the submission, not generation.

Derandomized Hypothesis draws the same examples, in the same order, for every
submission until one of them fails: what it draws next depends on its seed (derived
from the check's own source) and on earlier draws, never on the answers of a
submission that keeps passing. So the examples are recorded once, by running every
check against the reference head in this process, and the plugin replays them against
each submission. A check passes only when every recorded example passes; at the first
failure the plugin runs the live Hypothesis check instead, which meets the same failure
and shrinks it, so grades and counterexamples are exactly those of a live run.

Recordings also keep the reference's reply to each call, as the frame a worker running
the reference would send: an example a submission answers with those very bytes passes
as the reference's did (see plugin.pytest_pyfunc_call).

Recordings are cached on disk (one file per check in the wire format, no pickles) under a
key made of everything that can change the draws or the replies: the grader's sources
(the checks and strategies draw; the reference wrapper, the wire format and the proxy
make and read the replies), the reference head, and the versions of the grader,
Hypothesis, numpy and Python.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis
import numpy as np

from grader import __version__, assignments
from grader.assignments import Assignment
from grader.engine.proxy import CallBatch, Reply, Request, StudentFunctions, answer_of
from grader.errors import UsageError
from grader.resources import PACKAGE, project_file
from grader.sandbox import wire
from grader.sources import files


Example = dict[str, Any]
# Half a Linux pipe's default 64 KiB: room for a further batch beside what the worker
# has not read yet of the one before (see Recording.batches).
MAX_FURTHER_BATCH_BYTES = 32 * 1024


@dataclass(frozen=True)
class Recording:
    """What a check did against the reference: each example drawn, the calls it made, and
    the reference's reply to each call as a worker's frame (see wire.answer_frame)."""

    examples: list[Example]
    calls: list[list[Request]]
    replies: list[list[bytes]]

    @functools.cached_property
    def batches(self) -> list[tuple[int, CallBatch]]:
        """The calls of the examples in batches for the worker, each with its first
        example: 2 examples, then 4, 8, 16, the rest. A replay sends the first at once and
        each next one when it reaches the examples of the one before, so the worker is
        always a batch ahead, and a check that fails early (most fail in their first
        three) has the worker answer few calls that nobody will ask.

        A further batch is written while the worker answers the one before, so it must fit
        in the request pipe whole (Linux gives a pipe 64 KiB): a check with a larger one
        sends all its calls in one batch, which the worker reads before it answers any."""
        batches = []
        start, size = 0, 2
        while start < len(self.calls):
            calls = [call for example in self.calls[start : start + size] for call in example]
            batches.append((start, CallBatch(calls)))
            start, size = start + size, size * 2
        if any(len(batch.frame) > MAX_FURTHER_BATCH_BYTES for _, batch in batches[1:]):
            return [(0, CallBatch([call for example in self.calls for call in example]))]
        return batches

    @functools.cached_property
    def sent_next(self) -> dict[int, CallBatch]:
        """The batch to send when a replay reaches each example that starts one (see batches)."""
        return {start: batch for (start, _), (_, batch) in zip(self.batches, self.batches[1:])}


class ReferenceSubmission(StudentFunctions):
    """Stands in for a submission: the reference head answers in this process, and every
    example's drawn arguments and calls are kept."""

    def __init__(self, assignment: Assignment) -> None:
        super().__init__(assignment)
        self.recording = Recording([], [], [])
        self.example_calls: list = []

    def begin_example(self, drawn: Example | None = None) -> None:
        self.recording.examples.append(copy.deepcopy(drawn or {}))
        self.recording.calls.append([])
        self.recording.replies.append([])

    def end_example(self, error: BaseException | None) -> None:
        pass

    def call(self, function: str, args: list[Any], kwargs: dict[str, Any] | None = None, return_args: bool = False) -> Reply:
        kwargs = kwargs or {}
        self.recording.calls[-1].append((function, copy.deepcopy(list(args)), dict(kwargs), return_args))
        arguments = copy.deepcopy(list(args))
        value = self.assignment.reference_functions()[function](*arguments, **kwargs)
        # The check gets what this frame decodes to, as from a worker running the
        # reference: a submission whose replies are these very bytes passes with it.
        frame = wire.answer_frame(value, arguments if return_args else None)
        self.recording.replies[-1].append(frame)
        return answer_of(frame)


@functools.cache
def cache_key() -> str:
    """What the recorded draws and replies depend on: the grader's sources and the
    reference head (as this process loaded them), and the versions of the grader,
    Hypothesis, numpy and Python."""
    digest = hashlib.sha256()
    for part in (__version__, hypothesis.__version__, np.__version__, sys.version.split()[0]):
        digest.update(part.encode() + b"\0")
    for source in sorted(PACKAGE.rglob("*.py")) + [project_file(head) for head in assignments.reference_heads()]:
        digest.update(str(source.relative_to(source.parents[1])).encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def record(test: Callable, assignment: Assignment) -> Recording | None:
    """The examples a Hypothesis check of ``assignment`` draws while the reference passes
    it, and their calls."""
    if not hasattr(test, "hypothesis"):
        return None
    stand_in = ReferenceSubmission(assignment)
    try:
        test(submission=stand_in)
    except Exception:  # the reference should pass every check; if not, run it live
        return None
    return stand_in.recording


_LOADED: dict[Path, Recording | None] = {}


def recorded_examples(tests: dict[str, Callable], folder: Path | None, assignment: Assignment) -> dict[str, Recording]:
    """The recording of every Hypothesis check in ``tests`` (of ``assignment``), from the
    cache folder ``folder`` (one per :func:`cache_key`, course secret and assignment) or
    made now.

    Loaded recordings stay in memory: a check process that grades many submissions
    reads each file once.
    """
    found = {}
    for check_id, test in tests.items():
        path = folder / f"{check_id}.examples" if folder is not None else None
        recording = _LOADED.get(path) if path is not None else None
        if recording is None and path is not None:
            recording = _LOADED[path] = _read_recording(path)
        if recording is None:
            recording = record(test, assignment)
            if recording is not None and path is not None:
                _save(path, recording)
                _LOADED[path] = recording
        if recording is not None:
            found[check_id] = recording
    return found


def _encode(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"$array": len(arrays) - 1}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(item, arrays) for item in value]}
    if isinstance(value, list):
        return [_encode(item, arrays) for item in value]
    if isinstance(value, dict) and all(type(key) is str for key in value):
        return {"$dict": {key: _encode(item, arrays) for key, item in value.items()}}
    if value is None or type(value) in (bool, int, float, str):
        return value
    raise TypeError(f"cannot store a {type(value).__name__}")


def _decode(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, list):
        return [_decode(item, arrays) for item in value]
    if isinstance(value, dict):
        if "$array" in value:
            return arrays[value["$array"]]
        if "$tuple" in value:
            return tuple(_decode(item, arrays) for item in value["$tuple"])
        return {key: _decode(item, arrays) for key, item in value["$dict"].items()}
    return value


def encode_frame(fields: dict[str, Any]) -> bytes:
    """``fields`` (arrays, tuples, lists, dicts, scalars) as one wire frame: a JSON header and
    raw arrays, no pickles. Raises TypeError for anything else."""
    arrays: list[np.ndarray] = []
    header = {name: _encode(value, arrays) for name, value in fields.items()}
    return wire.encode(header, arrays)


def read_frame_file(path: Path) -> dict[str, Any] | None:
    """The fields of a file written from :func:`encode_frame`, arrays read-only; None if unreadable."""
    try:
        # Opened as a submission is (no link, no pipe): the frame's own limits bound the read.
        with os.fdopen(files.open_regular(path), "rb", buffering=0) as stream:
            header, arrays = wire.read_frame(stream.fileno())
        for array in arrays:
            array.flags.writeable = False  # shared by every submission this process grades
        return {name: _decode(value, arrays) for name, value in header.items() if name != "arrays"}
    except (OSError, UsageError, wire.WireError, KeyError, IndexError, TypeError, AttributeError):
        return None


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` all at once; a cache that cannot be written is only slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except OSError:
        pass


def _save(path: Path, recording: Recording) -> None:
    try:
        replies = [[np.frombuffer(frame, dtype=np.uint8) for frame in frames] for frames in recording.replies]
        write_atomic_bytes(path, encode_frame({"examples": recording.examples, "calls": recording.calls, "replies": replies}))
    except TypeError:
        pass  # a draw that cannot be stored: the next run records again


def _read_recording(path: Path) -> Recording | None:
    fields = read_frame_file(path)
    if fields is None:
        return None
    examples, calls, replies = fields.get("examples"), fields.get("calls"), fields.get("replies")
    if not all(isinstance(part, list) and len(part) == len(examples) for part in (examples, calls, replies)):
        return None
    if not all(isinstance(frames, list) and all(isinstance(frame, np.ndarray) for frame in frames) for frames in replies):
        return None
    return Recording(examples, calls, [[frame.tobytes() for frame in frames] for frames in replies])
