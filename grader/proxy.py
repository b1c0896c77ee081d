"""The trusted side of the worker: calls, deadlines, restarts and failure bookkeeping.

Checks see a :class:`Submission` whose methods look like the student's functions but
send each call to a sandboxed worker process and return plain ``numpy.ndarray`` values
rebuilt from validated bytes. The submission is never imported here.

Failure rules, which keep Hypothesis's shrinking sound:

- an import failure (or import timeout) fails every later call at once;
- after a timeout, a crash or a protocol violation, the rest of that check fails fast
  with the same error, and the next check gets a fresh worker;
- a check that runs past its time budget fails the same way as a timed-out call;
- every one of these is raised from the single ``raise`` in :meth:`Submission._fail`,
  so Hypothesis sees one failure, not a flaky mix of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from grader import wire
from grader.outcomes import (
    CallRaised,
    CallTimedOut,
    FunctionMissing,
    ImportFailed,
    ImportTimedOut,
    NotImplementedYet,
    SubmissionError,
    WorkerCrashed,
)
from grader.sandbox import Limits, WorkerProcess

# Argument names as the lesson writes them, for counterexamples and repro snippets.
PARAMETERS = {
    "softmax": ("x", "axis"),
    "attention": ("Q", "K", "V", "mask"),
    "self_attention": ("X", "Wq", "Wk", "Wv", "mask"),
    "causal_mask": ("n",),
}
SIGNATURES = {
    "softmax": "softmax(x, axis=-1)",
    "attention": "attention(Q, K, V, mask=None)",
    "self_attention": "self_attention(X, Wq, Wk, Wv, mask=None)",
    "causal_mask": "causal_mask(n)",
}


@dataclass(frozen=True)
class Call:
    """One call made to the submission: the function and its named arguments."""

    function: str
    arguments: dict[str, Any]


@dataclass
class Reply:
    value: Any
    args_after: list[Any] = field(default_factory=list)


class Submission:
    """The student's four functions, each call answered by a sandboxed worker."""

    def __init__(self, path: Path, limits: Limits = Limits()) -> None:
        self.path = path
        self.limits = limits
        self.functions: tuple[str, ...] = ()
        self.example_calls: list[Call] = []
        self._worker: WorkerProcess | None = None
        self._session_failure: SubmissionError | None = None
        self._check_failure: SubmissionError | None = None
        self._check_started = time.monotonic()

    # -- lifecycle, driven by the pytest plugin and the check decorator ---------------

    def begin_check(self) -> None:
        """Start a check: forget the previous check's failure and restart its clock."""
        self._check_failure = None
        self._check_started = time.monotonic()
        self.example_calls = []

    def begin_example(self, drawn: dict[str, Any] | None = None) -> None:
        """Start one Hypothesis example: the calls it makes form its counterexample."""
        self.example_calls = []

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    # -- the student's functions --------------------------------------------------------

    def softmax(self, x: np.ndarray, axis: int | None = None) -> Any:
        """``softmax(x)``, or ``softmax(x, axis=axis)`` when an axis is given."""
        kwargs = {} if axis is None else {"axis": axis}
        return self.call("softmax", [x], kwargs).value

    def attention(self, Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> Any:
        """``attention(Q, K, V)``, with the mask passed positionally when there is one."""
        return self.call("attention", [Q, K, V] + ([] if mask is None else [mask])).value

    def self_attention(
        self, X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, mask: np.ndarray | None = None
    ) -> Any:
        return self.call("self_attention", [X, Wq, Wk, Wv] + ([] if mask is None else [mask])).value

    def causal_mask(self, n: int) -> Any:
        return self.call("causal_mask", [n]).value

    def call(
        self, function: str, args: list[Any], kwargs: dict[str, Any] | None = None, return_args: bool = False
    ) -> Reply:
        """Call ``function`` in the worker; raise a :class:`SubmissionError` if it does not answer."""
        kwargs = kwargs or {}
        names = PARAMETERS[function]
        self.example_calls.append(Call(function, {**dict(zip(names, args)), **kwargs}))
        failure = self._session_failure or self._check_failure
        if failure is None:
            try:
                return self._exchange(function, args, kwargs, return_args)
            except SubmissionError as error:
                failure = error
        self._fail(failure)

    # -- internals ------------------------------------------------------------------------

    def _fail(self, error: SubmissionError) -> NoReturn:
        # The one place a submission failure is raised: a fresh instance of the same
        # class each time, so Hypothesis sees the same failure on every replay.
        raise _clone(error) from None

    def _exchange(self, function: str, args: list[Any], kwargs: dict[str, Any], return_args: bool) -> Reply:
        worker = self._ready_worker()
        if function not in self.functions:
            raise FunctionMissing(f"attention.py does not define {function}()")
        arrays: list[np.ndarray] = []
        request = {
            "op": "call",
            "function": function,
            "args": [_pack_argument(arg, arrays) for arg in args],
            "kwargs": {key: _pack_argument(value, arrays) for key, value in kwargs.items()},
            "return_args": return_args,
        }
        budget_left = self.limits.check_budget - (time.monotonic() - self._check_started)
        timeout = min(self.limits.call_timeout, max(budget_left, 0.0))
        try:
            wire.write_all(worker.requests, wire.encode(request, arrays))
            header, replies = wire.read_frame(worker.replies, time.monotonic() + timeout)
            reply = self._interpret(function, header, replies)
        except wire.Deadline:
            self._discard_worker()
            if timeout < self.limits.call_timeout:
                message = f"this check ran out of its {self.limits.check_budget:g} s time budget"
            else:
                message = f"{function}() did not return within {self.limits.call_timeout:g} s"
            self._check_failure = CallTimedOut(message, calls=list(self.example_calls))
            raise self._check_failure from None
        except (wire.WireError, OSError) as error:
            reason = worker.exit_description() if isinstance(error, (wire.PipeClosed, OSError)) else str(error)
            self._discard_worker()
            self._check_failure = WorkerCrashed(
                f"the process running {function}() failed: {reason}", calls=list(self.example_calls)
            )
            raise self._check_failure from None
        return reply

    def _interpret(self, function: str, header: dict[str, Any], arrays: list[np.ndarray]) -> Reply:
        status = header.get("status")
        if status == "ok":
            after = header.get("args_after", [])
            if not isinstance(after, list):
                raise wire.WireError("args_after is not a list")
            return Reply(wire.unpack(header.get("value"), arrays), [wire.unpack(a, arrays) for a in after])
        if status == "raised":
            line = header.get("line")
            line = line if type(line) is int else None
            kind, text = str(header.get("type"))[:100], str(header.get("message"))[:500]
            where = f" (attention.py, line {line})" if line else ""
            if kind == "NotImplementedError":
                raise NotImplementedYet(
                    f"{function}() is not written yet: it raises NotImplementedError{where}",
                    exception_type=kind,
                    line=line,
                )
            hint = ""
            if kind == "TypeError" and "argument" in text:
                hint = f"; the grader calls it as the lesson defines it: {SIGNATURES[function]}"
            raise CallRaised(f"{function}() raised {kind}: {text}{where}{hint}", exception_type=kind, line=line)
        if status == "missing":
            raise FunctionMissing(f"attention.py does not define {function}()")
        raise wire.WireError(f"unexpected reply status {status!r}")

    def _ready_worker(self) -> WorkerProcess:
        if self._worker is not None:
            return self._worker
        worker = WorkerProcess(self.path, self.limits)
        try:
            header, _ = wire.read_frame(worker.replies, time.monotonic() + self.limits.import_timeout)
        except wire.Deadline:
            worker.kill()
            self._session_failure = ImportTimedOut(
                f"importing attention.py took longer than {self.limits.import_timeout:g} s"
            )
            raise self._session_failure from None
        except (wire.WireError, OSError):
            reason = worker.exit_description()
            worker.kill()
            self._session_failure = ImportFailed(f"attention.py could not be imported: {reason}")
            raise self._session_failure from None
        if header.get("status") == "import_failed":
            worker.kill()
            self._session_failure = ImportFailed(_import_message(header))
            raise self._session_failure
        functions = header.get("functions")
        if header.get("status") != "ready" or not isinstance(functions, list):
            worker.kill()
            self._session_failure = ImportFailed("attention.py could not be imported: the worker did not start")
            raise self._session_failure
        self.functions = tuple(name for name in functions if name in PARAMETERS)
        self._worker = worker
        return worker

    def _discard_worker(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None


def _clone(error: SubmissionError) -> SubmissionError:
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    copy.args = error.args
    return copy


def _import_message(header: dict[str, Any]) -> str:
    kind, text, line = str(header.get("type"))[:100], str(header.get("message"))[:500], header.get("line")
    where = f" at line {line}" if type(line) is int else ""
    return f"attention.py could not be imported: {kind}{where}: {text}"


def _pack_argument(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"$array": len(arrays) - 1}
    return value
