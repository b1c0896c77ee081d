"""Traces of live Hypothesis runs, so a failure seen before is shrunk without the engine.

With ``derandomize=True`` and no example database, Hypothesis is a deterministic
machine whose only input is how each example it runs ends: passed, or failed with which
*origin* (exception type and the line that raised it). Which example it runs next, when
it stops and which example it reports all follow from those outcomes. So a live run of a
failing check is recorded as a trace: every example run, in order, with its outcome.

A later submission that fails the same check *walks* the known traces: it runs each
trace's next example and keeps the traces whose recorded outcome it matches. If it
matches a whole trace, a live run would have run exactly those examples and ended the
same way, so the walk's last error is the result, with this submission's own answers
(shrinking costs calls to the submission, not Hypothesis's generation and shrinking
work, which is most of a failing check's time). If it leaves every trace, the live run
starts; the calls the walk already made are served again from a journal, so the worker
sees each call once, exactly as in a live run without the walk.

A trace is kept only when its run ended with the error of its last example and no call
timed out or crashed (those depend on the machine's speed, not only on the submission).
Whether a trace is found never changes a result, only how soon it comes: traces are a
cache, shared by the parallel jobs of a batch through files next to the recorded examples
(``traces/<grader sources digest>/<check>/<sha>.trace``, each one wire frame of its
outcomes and examples).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader import assignments
from grader.checking.outcomes import SubmissionError, outcome
from grader.engine.examples import (
    Example,
    encode_frame,
    read_frame_file,
    write_atomic_bytes,
)
from grader.resources import PACKAGE, project_file



@dataclass(frozen=True)
class Trace:
    """One recorded run, without its examples: the outcome of each example it ran."""

    path: Path
    outcomes: tuple[str, ...]
    steps: tuple[int, ...]  # an index into outcomes per example run

    def outcome_at(self, step: int) -> str:
        return self.outcomes[self.steps[step]]


class TraceStore:
    """The traces of every check in ``folder`` (``<check>/<sha>.trace``), as other jobs add them.

    Only outcomes stay in memory; the examples of a trace are read when a walk needs them.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._traces: dict[Path, Trace | None] = {}

    def traces(self, check_id: str) -> list[Trace]:
        folder = self.folder / check_id
        try:
            names = sorted(name for name in os.listdir(folder) if name.endswith(".trace"))
        except OSError:
            return []
        found = []
        for name in names:
            path = folder / name
            if path not in self._traces:
                self._traces[path] = _read_outcomes(path)
            if self._traces[path] is not None:
                found.append(self._traces[path])
        return found

    def save(self, check_id: str, run: list[tuple[Example, str]]) -> None:
        """Keep ``run`` (each example with its outcome, see grader.checking.outcomes.outcome) as a trace."""
        outcomes: list[str] = []
        for _, key in run:
            if key not in outcomes:
                outcomes.append(key)
        steps = [outcomes.index(key) for _, key in run]
        try:
            frame = encode_frame({"outcomes": outcomes, "steps": steps, "examples": [drawn for drawn, _ in run]})
        except TypeError:
            return  # a draw that cannot be stored: this failure is shrunk live next time too
        name = hashlib.sha256(frame).hexdigest()[:32] + ".trace"
        write_atomic_bytes(self.folder / check_id / name, frame)


@functools.cache
def store_at(folder: Path) -> TraceStore:
    """The traces under ``folder`` made by this very grader: outcomes name the lines that
    raised, so another version of any grader source (or of the reference head) keeps its
    own. One store per folder and process, so a long-lived check process reads each
    trace once."""
    digest = hashlib.sha256()
    for source in sorted(PACKAGE.rglob("*.py")) + [project_file(head) for head in assignments.reference_heads()]:
        digest.update(source.read_bytes() + b"\0")
    return TraceStore(folder / digest.hexdigest()[:24])


def _read_outcomes(path: Path) -> Trace | None:
    fields = read_frame_file(path)
    try:
        outcomes = tuple(str(key) for key in fields["outcomes"])
        steps = tuple(int(index) for index in fields["steps"])
        examples = fields["examples"]
    except (KeyError, TypeError, ValueError):
        return None
    if not steps or len(steps) != len(examples) or not all(0 <= index < len(outcomes) for index in steps):
        return None
    return Trace(path, outcomes, steps)


@functools.lru_cache(maxsize=32)  # a few MiB at most: traces are small
def _examples_of(path: Path) -> list[Example] | None:
    fields = read_frame_file(path)
    examples = fields.get("examples") if fields is not None else None
    return examples if isinstance(examples, list) and all(isinstance(e, dict) for e in examples) else None


def walk(traces: list[Trace], run: Callable[[Example], BaseException | None]) -> BaseException | None:
    """Follow ``traces`` while ``run`` (one example against the submission, returning its
    error or None) matches them.

    Returns the error of the last example of a trace matched to its end: the error a live
    run would end with. None once no trace matches (or a trace cannot be read, or a call
    failed in a way that depends on time).
    """
    candidates = traces
    step = 0
    while candidates:
        # Traces that agree on every outcome so far ran the same examples so far, and run
        # the same one next: any of them will do.
        examples = _examples_of(candidates[0].path)
        if examples is None or len(examples) != len(candidates[0].steps):
            return None
        error = run(examples[step])
        if isinstance(error, SubmissionError) and error.fails_fast:
            return None
        key = outcome(error)
        candidates = [trace for trace in candidates if trace.outcome_at(step) == key]
        step += 1
        if any(len(trace.steps) == step for trace in candidates):
            return error  # None only for a trace that ended in a pass, which is never kept
    return None
