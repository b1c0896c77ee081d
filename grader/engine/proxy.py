"""The trusted side of the worker: calls, deadlines, restarts and failure bookkeeping.

Checks see a :class:`Submission` whose methods look like the student's functions but
send each call to a sandboxed worker process and return plain ``numpy.ndarray`` values
rebuilt from validated bytes. The submission is never imported here.

Failure rules, which keep Hypothesis's shrinking sound:

- an import failure (or import timeout) fails every later call at once;
- after a timeout, a crash or a protocol violation, the rest of that check fails fast
  with the same error, and the next check gets a fresh worker;
- a check that runs past its time budget fails the same way as a timed-out call;
- a function that timed out in a check is called once more before the next check, on a
  small input every head answers at once (the assignment's ``small_calls``); if it does not return
  there either, it is given up: every later check that calls it fails
  at once, saying so, instead of waiting out one more call timeout (a head that loops
  forever is graded in a few call timeouts, not one per check; one that hangs only on
  some inputs is called as usual);
- every one of these is raised from the single ``raise`` in :meth:`Submission._fail`,
  so Hypothesis sees one failure, not a flaky mix of them.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from grader.assignments import Assignment, written_for_another
from grader.checking.outcomes import (
    CallRaised,
    CallTimedOut,
    FunctionMissing,
    ImportFailed,
    ImportTimedOut,
    NotImplementedYet,
    SubmissionError,
    WorkerCrashed,
    outcome,
)
from grader.sandbox import MIB, SCRATCH_BYTES, Limits, wire
from grader.sandbox.workers import Interface, Worker
from grader.sandbox.workers import start_worker as start_worker_process
from grader.sources import Source

UNDEFINED_NAME = re.compile(r"name '(\w+)' is not defined.*", re.DOTALL)
# The built-in classes read of one exception (its MRO holds a dozen at most: OSError's subclasses).
MOST_KINDS = 16


@dataclass(frozen=True)
class Call:
    """One call made to the submission: the function, its named arguments, and which of
    them were passed by keyword."""

    function: str
    arguments: dict[str, Any]
    keywords: tuple[str, ...] = ()
    # The call's arguments were read back after it (a check of what it changes in place).
    reads_arguments: bool = False


@dataclass
class Reply:
    value: Any
    args_after: list[Any] = field(default_factory=list)


# A walk (grader.engine.traces) that has kept this much reply data stops: a check process must
# not hold gigabytes for a head that returns huge arrays.
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
# Seconds of a submission's budget its checks leave for what follows them (pictures,
# diagnoses, the report): a check never gets more than the rest.
SUBMISSION_RESERVE_S = 10.0

# A call as sent to the worker: function, positional and keyword arguments, and whether
# the arguments come back too (to see whether the call changed them).
Request = tuple[str, list[Any], dict[str, Any], bool]


class CallBatch:
    """Calls to send a worker ahead in one frame (see :meth:`Submission.prefetch`),
    encoded once: a check process sends the same batch to every submission it grades."""

    def __init__(self, calls: list[Request]) -> None:
        self.calls = calls
        self.functions = frozenset(call[0] for call in calls)
        arrays: list[np.ndarray] = []
        self.frame = wire.encode({"op": "batch", "calls": [_pack_request(call, arrays) for call in calls]}, arrays)


@dataclass(frozen=True)
class JournalEntry:
    """One call as the worker saw it, and how it ended: a reply or a submission failure."""

    request: Request
    result: Reply | SubmissionError


def _same_request(left: Any, right: Any) -> bool:
    """Whether two requests (or two parts of them) are the same call: arrays the same in
    dtype, shape and bytes. Loops, not ``all()``: every call a check makes is compared."""
    if left is right:
        return True
    if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
        return (
            isinstance(left, np.ndarray) and isinstance(right, np.ndarray)
            and left.dtype == right.dtype and left.shape == right.shape and left.tobytes() == right.tobytes()
        )
    if isinstance(left, (list, tuple)):
        if not isinstance(right, (list, tuple)) or len(left) != len(right):
            return False
        for a, b in zip(left, right):
            if not _same_request(a, b):
                return False
        return True
    if isinstance(left, dict):
        if not isinstance(right, dict) or left.keys() != right.keys():
            return False
        for key in left:
            if not _same_request(left[key], right[key]):
                return False
        return True
    return type(left) is type(right) and left == right


class StudentFunctions:
    """The assignment's functions, each ``self.<name>(*args, **kwargs)`` turned into one
    :meth:`call` (see :meth:`grader.assignments.Function.request`), so every stand-in for a
    submission sends the same calls."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment

    def __getattr__(self, name: str) -> Callable[..., Any]:
        function = self.__dict__["assignment"].by_name.get(name) if "assignment" in self.__dict__ else None
        if function is None:
            raise AttributeError(name)

        def send(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, *function.request(args, kwargs)).value

        return send

    def call(
        self, function: str, args: list[Any], kwargs: dict[str, Any] | None = None, return_args: bool = False
    ) -> Reply:
        raise NotImplementedError

    def as_call(self, request: Request) -> Call:
        """``request`` with its arguments named as the handout names them (and as the
        student's code receives them, under a course's convention)."""
        function, args, kwargs, return_args = request
        described = self.assignment.by_name[function]
        if self.assignment.convention is not None:
            args, kwargs = self.assignment.convention.sent(described, list(args), dict(kwargs))
        return Call(function, {**dict(zip(described.parameters, args)), **kwargs}, tuple(kwargs), return_args)


class Submission(StudentFunctions):
    """The student's functions, each call answered by a sandboxed worker."""

    def __init__(self, source: Source, assignment: Assignment, limits: Limits = Limits()) -> None:
        super().__init__(assignment)
        self._interface = Interface(Path(assignment.handout).stem, assignment.function_names)
        # Read once, before: every worker of this submission runs these bytes, whatever
        # another submission's worker does to the file meanwhile.
        self.source = source
        self.limits = limits
        self.functions: tuple[str, ...] = ()
        self._bound: dict[str, str] = {}  # names of the assignment's functions bound to something else: its type
        self.example_calls: list[Call] = []
        self._worker: Worker | None = None
        self._starting: Worker | None = None  # started, not yet ready
        self._session_failure: SubmissionError | None = None
        self._check_failure: SubmissionError | None = None
        self._check_started = time.monotonic()
        self._budget = limits.check_budget  # of the check under way
        self._checks_started: float | None = None  # when the first worker was ready: the checks' clock
        self._cut_by_submission = False  # the check under way has less than a check's budget: the submission's is spent
        self._pending: list[Request] = []  # prefetched calls not yet taken, last first
        self._prefetching = False  # batches sent since the check began, none of their calls dropped
        # See start_journal and replay_journal.
        self._journal: list[JournalEntry] | None = None
        self._replaying: list[JournalEntry] = []
        # See start_trace.
        self._trace: list[tuple[dict[str, Any], str]] | None = None
        self._drawn: dict[str, Any] = {}
        self.trace_unreliable = False  # a call of the traced run timed out or crashed
        self.last_error: BaseException | None = None  # what the traced run's last example raised
        self._journal_bytes = 0
        self._check: str | None = None  # the check under way (None: pictures, diagnoses, a probe)
        self._timed_out_in: dict[str, str] = {}  # function -> the first check it timed out in
        self._probed: set[str] = set()
        self._hangs: dict[str, CallTimedOut] = {}  # function -> the failure of every later call

    # -- lifecycle, driven by the pytest plugin and the check decorator ---------------

    def begin_check(self, check: str | None = None, budget: float | None = None, *, probe: bool = True) -> None:
        """Start ``check`` (None: not one of the rubric's) with ``budget`` seconds for all
        its calls (default: a check's budget): forget the previous check's failure and
        restart its clock; before that, unless ``probe`` is False, probe any function that
        timed out since the last probe (see the module docstring)."""
        self._drop_prefetched()  # before the clock starts: their wait is no check's
        # A check gets no more than what its submission's checks have left, keeping room to
        # explain and report: a submission slow on every check is graded (its later checks
        # time out, saying why), not cut off whole by its check run's deadline.
        left = self._checks_left() if check is not None and budget is None else None
        # A probe is no check's, but it is the submission's time: it starts a fresh worker and
        # makes one call, so it runs only where both fit in what the checks have left.
        if probe and (left is None or left >= self.limits.import_timeout + self.limits.call_timeout):
            self._budget = self.limits.check_budget
            self._probe_timed_out()
        self._budget = self.limits.check_budget if budget is None else budget
        self._cut_by_submission = left is not None and left < self._budget
        if self._cut_by_submission:
            self._budget = max(left, 0.0)
        self._check = check
        self._check_failure = None
        if self._cut_by_submission and self._budget <= 0:  # nothing left: fail at once, no worker started
            self._check_failure = CallTimedOut(self._used_up())
            self._check_failure.caused_by_input = False
        self._check_started = time.monotonic()
        self.example_calls = []
        self._replaying = []
        self._journal = None

    def _checks_left(self) -> float:
        """Seconds a submission's checks have left of what they may take together: its
        budget, less the time its first import may take and what follows its checks (half
        the budget at most), counted from the end of that import."""
        if self._checks_started is None:
            return self._checks_budget()
        return self._checks_budget() - (time.monotonic() - self._checks_started)

    def _checks_budget(self) -> float:
        limits = self.limits
        # Never less than half the budget: a budget set below the import's own time (a
        # test's, a slow platform's) still leaves the checks time to run.
        return limits.submission_budget - min(limits.import_timeout + SUBMISSION_RESERVE_S, limits.submission_budget / 2)

    def _used_up(self) -> str:
        return (
            f"the submission's checks used up the {self._checks_budget():g} s they may take in all before this "
            "check could finish: its functions are too slow to answer every check in time"
        )

    def begin_example(self, drawn: dict[str, Any] | None = None) -> None:
        """Start one Hypothesis example: the calls it makes form its counterexample."""
        self.example_calls = []
        if self._trace is not None:
            self._drawn = copy.deepcopy(drawn or {})

    def end_example(self, error: BaseException | None) -> None:
        """Finish an example: ``error`` is what it raised (None when it passed)."""
        if self._trace is not None:
            # Only the outcome is kept: an error's traceback would keep the arrays alive.
            self._trace.append((self._drawn, outcome(error)))
            self.trace_unreliable |= isinstance(error, SubmissionError) and error.fails_fast
            self.last_error = error

    def start_trace(self) -> None:
        """Keep each example run from now on, with its outcome (see grader.engine.traces)."""
        self._trace = []
        self.trace_unreliable = False
        self.last_error = None

    def stop_trace(self) -> list[tuple[dict[str, Any], str]]:
        trace, self._trace = self._trace or [], None
        return trace

    def prefetch(self, batch: CallBatch, *, more: bool = False) -> None:
        """Send ``batch``, the calls the next examples are expected to make, in one frame;
        with ``more``, after the batches sent since the check began, if none of their
        calls has been dropped (else nothing is sent).

        The worker answers them one by one while the checks run; a call that matches the
        next prefetched one just takes its reply. At the first call that does not match
        (or at the next check) the remaining replies are skipped, and calls are sent one
        at a time again. The worker answers every prefetched call either way: which calls
        it sees depends on which examples passed. (A further batch is written while the
        worker answers the one before, so it must fit in the pipe: see Recording.batches.)
        """
        if more != self._prefetching or not batch.calls or self._replaying or self._session_failure or self._check_failure:
            return
        if not batch.functions.isdisjoint(self._hangs):
            return  # each call fails at once, unsent
        try:
            worker = self._ready_worker()
        except SubmissionError:
            return  # the first call raises it again
        if not batch.functions <= set(self.functions):
            self._prefetching = False  # nor any batch after this one
            return
        try:
            wire.write_all(worker.requests, batch.frame, time.monotonic() + self.limits.call_timeout)
        except (OSError, wire.Deadline):
            self._discard_worker()  # it stopped reading: the next call starts another
            return
        self._pending[:0] = reversed(batch.calls)
        self._prefetching = True

    def takes_replies(self, calls: list[Request], replies: list[bytes]) -> bool:
        """Take the worker's replies to ``calls``, the next prefetched ones, if they are
        byte for byte ``replies`` (the reference's); else take nothing.

        A check is a function of the example it drew and the replies it got, so an example
        answered exactly as the reference answered it passes as the reference's did, and
        need not run. Where a reply does not come, the calls fail as they would when made.
        """
        if not calls or len(calls) != len(replies) or len(self._pending) < len(calls) or self._replaying:
            return False
        if any(self._pending[-1 - index] is not call for index, call in enumerate(calls)):
            return False
        worker = self._worker
        offset = 0
        for index, (call, reply) in enumerate(zip(calls, replies)):
            try:
                same = worker.reader.holds(offset, reply, time.monotonic() + self._timeout())
            except wire.Deadline:
                self.example_calls = [self.as_call(request) for request in calls[: index + 1]]
                self._no_reply(call[0], worker)
            except (wire.WireError, OSError):
                return False  # making the calls meets the same failure and reports it
            if not same:
                return False
            offset += len(reply)
        worker.reader.skip(offset)
        del self._pending[-len(calls):]
        return True

    def _drop_prefetched(self) -> None:
        worker = self._worker
        while self._pending and worker is not None:
            self._pending.pop()
            try:
                worker.reader.skip_frame(time.monotonic() + self.limits.call_timeout)
            except (wire.WireError, OSError):
                self._discard_worker()
        self._pending = []
        self._prefetching = False

    def start_journal(self) -> None:
        """Keep every call from now on with its result, to serve again (see replay_journal)."""
        self._journal = []
        self._journal_bytes = 0

    @property
    def journal_full(self) -> bool:
        """Whether the journal holds more reply bytes than a check process should keep."""
        return self._journal_bytes > MAX_JOURNAL_BYTES

    def stop_journal(self) -> list[JournalEntry]:
        journal, self._journal = self._journal or [], None
        return journal

    def replay_journal(self, journal: list[JournalEntry]) -> None:
        """Answer the next calls from ``journal`` instead of the worker, which already ran them.

        A run that repeats calls the worker has answered (a Hypothesis run after a trace
        walk that left the trace) must not send them again: a stateful submission would
        then see them twice. The calls must come in the journal's order; after its last
        one, calls go to the worker again.
        """
        self._replaying = list(reversed(journal))

    def start_worker(self) -> None:
        """Start the worker now, so its start overlaps whatever comes before the first call."""
        if self._worker is None and self._starting is None and self._session_failure is None:
            try:
                self._starting = start_worker_process(self.source.code, self.limits, self._interface)
            except OSError:
                pass  # the first call starts it again and reports what goes wrong

    @property
    def hangs_on_some_inputs(self) -> list[str]:
        """The functions that timed out in a check and answered their small input when
        tried on it after (see the module docstring): they hang on some inputs only."""
        return [function for function in self._timed_out_in if function in self._probed and function not in self._hangs]

    def start_afresh(self, *, ready: bool = False) -> None:
        """Forget whatever the submission kept between calls: the next call starts a fresh
        worker. With ``ready``, wait for that worker to have imported the submission (within
        the import timeout, not a check's clock), so the next call's time is its own; an
        import that fails raises as a call would."""
        self._drop_prefetched()
        self._discard_worker()
        if ready:
            self._check = None  # the import's wait is no check's
            self._ready_worker()

    def close(self) -> None:
        for worker in (self._worker, self._starting):
            if worker is not None:
                worker.kill()
        self._worker = self._starting = None

    # -- the student's functions --------------------------------------------------------

    def call(
        self, function: str, args: list[Any], kwargs: dict[str, Any] | None = None, return_args: bool = False
    ) -> Reply:
        """Call ``function`` in the worker; raise a :class:`SubmissionError` if it does not answer."""
        kwargs = kwargs or {}
        request = (function, list(args), dict(kwargs), return_args)
        self.example_calls.append(self.as_call(request))
        if self._replaying:
            return self._from_journal(request)
        if self._pending and not _same_request(self._pending[-1], request):
            self._drop_prefetched()
        failure = self._session_failure or self._check_failure or self._hangs.get(function)
        if failure is None:
            try:
                if self._pending:
                    self._pending.pop()
                    reply = self._receive(function, self._worker)
                else:
                    reply = self._exchange(function, args, kwargs, return_args)
            except SubmissionError as error:
                failure = error
            else:
                if self._journal is not None:
                    self._journal.append(JournalEntry(request, reply))
                    self._journal_bytes += _size(reply.value) + sum(_size(arg) for arg in reply.args_after)
                return reply
        if self._journal is not None:
            self._journal.append(JournalEntry(request, failure))
        self._fail(failure)

    def _from_journal(self, request: tuple) -> Reply:
        entry = self._replaying.pop()
        if not _same_request(entry.request, request):
            # Checks are deterministic, so a repeated run makes the same calls in the
            # same order; anything else is a bug in the grader, never the student's.
            raise RuntimeError(f"the grader repeated a run with different calls ({request[0]}() differs)")
        if isinstance(entry.result, Reply):
            return entry.result
        if entry.result.fails_fast:
            self._check_failure = entry.result
        self._fail(entry.result)

    # -- internals ------------------------------------------------------------------------

    def _fail(self, error: SubmissionError) -> NoReturn:
        # The one place a submission failure is raised: a fresh instance of the same
        # class each time, so Hypothesis sees the same failure on every replay.
        raise _clone(error) from None

    def _exchange(self, function: str, args: list[Any], kwargs: dict[str, Any], return_args: bool) -> Reply:
        worker = self._ready_worker()
        if function not in self.functions:
            raise FunctionMissing(self._missing(function))
        convention = self.assignment.convention
        if convention is not None:  # the checks' call, as the course's code reads it
            args, kwargs = convention.sent(self.assignment.by_name[function], list(args), dict(kwargs))
        arrays: list[np.ndarray] = []
        request = {"op": "call", **_pack_request((function, args, kwargs, return_args), arrays)}
        try:
            wire.write_all(worker.requests, wire.encode(request, arrays), time.monotonic() + self._timeout())
        except wire.Deadline:
            self._no_reply(function, worker)  # it stopped reading its requests
        except OSError:
            pass  # the worker is gone: reading its reply says how
        return self._receive(function, worker)

    def _timeout(self) -> float:
        budget_left = self._budget - (time.monotonic() - self._check_started)
        return min(self.limits.call_timeout, max(budget_left, 0.0))

    def _no_reply(self, function: str, worker: Worker) -> NoReturn:
        """The call's deadline passed without a reply: a timeout, unless the worker has
        ended (a child it started still holds its reply pipe open), which is a crash."""
        if worker.ended():
            self._crashed(function, worker.exit_description())
        self._timed_out(function)

    def _timed_out(self, function: str) -> NoReturn:
        self._discard_worker()
        if self._check is not None:
            self._timed_out_in.setdefault(function, self._check)
        if self._cut_by_submission and self._timeout() < self.limits.call_timeout:
            message = self._used_up()
        elif self._timeout() < self.limits.call_timeout:
            message = f"this check ran out of its {self._budget:g} s time budget"
        else:
            message = f"{function}() did not return within {self.limits.call_timeout:g} s"
        self._check_failure = CallTimedOut(message, calls=list(self.example_calls))
        raise self._check_failure from None

    def _receive(self, function: str, worker: Worker) -> Reply:
        """The worker's reply to its oldest unanswered call, within the call's deadline."""
        try:
            header, replies = worker.reader.read_frame(time.monotonic() + self._timeout())
            reply = self._interpret(function, header, replies)
            convention = self.assignment.convention
            if convention is not None and reply.args_after:
                reply = Reply(reply.value, convention.read_back(self.assignment.by_name[function], reply.args_after))
        except wire.Deadline:
            self._no_reply(function, worker)
        except (wire.WireError, OSError) as error:
            self._crashed(
                function, worker.exit_description() if isinstance(error, (wire.PipeClosed, OSError)) else str(error)
            )
        return reply

    def _crashed(self, function: str, reason: str) -> NoReturn:
        self._discard_worker()
        self._check_failure = WorkerCrashed(f"the process running {function}() failed: {reason}", calls=list(self.example_calls))
        raise self._check_failure from None

    def _interpret(self, function: str, header: dict[str, Any], arrays: list[np.ndarray]) -> Reply:
        status = header.get("status")
        if status == "ok":
            return _answered(header, arrays)
        if status == "raised":
            line = header.get("line")
            line = line if type(line) is int else None
            kind, text = str(header.get("type"))[:100], str(header.get("message"))[:500]
            kinds = header.get("kinds")
            kinds = tuple(str(name)[:100] for name in kinds[:MOST_KINDS]) if isinstance(kinds, list) else ()
            where = f" ({self.source.where(line)})" if line else ""
            raised_in = _raised_in(header.get("function")) if line else None
            if kind == "NotImplementedError" and raised_in not in (None, function):
                # A function of its own calls another that is not written yet: that one is named.
                raise NotImplementedYet(
                    f"{function}() raised NotImplementedError from {raised_in}(){where}, which is not written yet",
                    exception_type=kind,
                    line=line,
                    text=text,
                    kinds=kinds,
                )
            if kind == "NotImplementedError":
                raise NotImplementedYet(
                    f"{function}() is not written yet: it raises NotImplementedError{where}",
                    exception_type=kind,
                    line=line,
                    text=text,
                    kinds=kinds,
                )
            # Raised in a function of the file's own that this one calls: that one is blamed.
            blamed, caller = (raised_in, f", when the grader called {function}()") if raised_in not in (None, function) else (function, "")
            hint = ""
            if kind == "TypeError" and "argument" in text and not caller:
                hint = f"; the grader calls it as the lesson defines it: {self.assignment.by_name[function].signature}"
            undefined = UNDEFINED_NAME.fullmatch(text) if kind == "NameError" else None
            if undefined:
                hint = self.source.why_undefined(undefined.group(1))
            if kind == "BlockingIOError" or (kind == "RuntimeError" and "can't start new thread" in text):
                hint = "; the sandbox lets a submission start only a few processes and threads: the lesson's functions need none"
            hint = hint or _space_hint(kind, text, self.limits)
            raise CallRaised(
                f"{blamed}() raised {kind}: {text}{where}{caller}{hint}", exception_type=kind, line=line, text=text,
                kinds=kinds,
            )
        if status == "missing":
            raise FunctionMissing(self._missing(function))
        raise wire.WireError(f"unexpected reply status {status!r}")

    def _probe_timed_out(self) -> None:
        """Call each function that timed out in a check, and was not probed yet, on its
        small input; one that does not return there is given up (see the module
        docstring). The probe is no check's: its time counts against none."""
        for function in [name for name in self._timed_out_in if name not in self._probed]:
            self._probed.add(function)
            args, described = self.assignment.small_calls()[function]
            self._check, self._check_started, self.example_calls = None, time.monotonic(), []
            try:
                self._exchange(function, list(args), {}, False)
            except CallTimedOut:
                check = self._timed_out_in[function]
                self._hangs[function] = hangs = CallTimedOut(
                    f"{function}() hangs even on an input every working version answers at once: it did not return "
                    f"within {self.limits.call_timeout:g} s "
                    f"in check {check}, nor when called again on {described}, so this check did not wait for it"
                )
                hangs.caused_by_input = False  # no input of this check was sent
            except SubmissionError:
                pass  # it raised, or broke, without hanging

    def _ready_worker(self) -> Worker:
        if self._worker is not None:
            return self._worker
        worker, self._starting = self._starting or start_worker_process(self.source.code, self.limits, self._interface), None
        # A restart's import is the checks' time: it may take no more than they have left.
        wait = self.limits.import_timeout
        if self._checks_started is not None and self._check is not None:
            wait = min(wait, max(self._checks_left(), 0.0))
        try:
            header, _ = worker.reader.read_frame(time.monotonic() + wait)
        except wire.Deadline:
            worker.kill()
            if wait < self.limits.import_timeout:  # out of the checks' time, not of the import's
                self._check_failure = CallTimedOut(self._used_up())
                self._check_failure.caused_by_input = False
                raise self._check_failure from None
            self._session_failure = ImportTimedOut(
                f"importing {self.source.name} took longer than {self.limits.import_timeout:g} s"
            )
            raise self._session_failure from None
        except (wire.WireError, OSError):
            reason = worker.exit_description()
            worker.kill()
            self._session_failure = ImportFailed(f"{self.source.name} could not be imported: {reason}")
            raise self._session_failure from None
        if header.get("status") == "import_failed":
            worker.kill()
            self._session_failure = ImportFailed(_import_message(header, self.source, self.limits))
            raise self._session_failure
        functions = header.get("functions")
        if header.get("status") != "ready" or not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
            worker.kill()
            self._session_failure = ImportFailed(f"{self.source.name} could not be imported: the worker did not start")
            raise self._session_failure
        self.functions = tuple(name for name in functions if name in self.assignment.by_name)
        bound = header.get("bound")
        self._bound = {
            name: kind for name, kind in bound.items() if name in self.assignment.by_name and isinstance(kind, str) and kind.isidentifier()
        } if isinstance(bound, dict) else {}
        self._worker = worker
        if self._checks_started is None:
            self._checks_started = time.monotonic()
        return worker

    def _missing(self, function: str) -> str:
        """Why ``function`` cannot be called: not defined, or bound to something else."""
        other = written_for_another(set(self.source.defined_names), self.assignment)
        if other is not None:
            return (
                f"the file does not define {function}(): it defines the functions of the assignment "
                f"{other.name} instead ({', '.join(other.function_names)}); grade it with --assignment {other.name}"
            )
        bound = self._bound.get(function, "NoneType")[:40]
        if bound != "NoneType":
            return f"{self.source.name} binds {function} to {_a(bound)} {bound}, not a function"
        return f"{self.source.name} does not define {function}(){self.source.why_missing(function)}"

    def _discard_worker(self) -> None:
        self._pending = []
        self._prefetching = False
        if self._worker is not None:
            self._worker.kill()
            self._worker = None


# A function's qualified name as Python gives it: dotted identifiers, <locals>, <lambda> and
# the like (a submission may rename its code objects: anything else is not shown).
QUALNAME = re.compile(r"[A-Za-z_][\w]*(?:\.(?:[A-Za-z_]\w*|<\w+>))*|<lambda>")


def _raised_in(qualname: object) -> str | None:
    """How feedback names the submission's function whose line raised (``qualname``, the
    innermost frame's, from the worker): ``_scores``, ``Helper.go``, ``wrapper`` (a
    decorator's, defined in ``_deco``); the function that holds a comprehension or a nested
    lambda; None where it is not known or is code at the top of the module (a lambda
    assigned there, say)."""
    if not isinstance(qualname, str) or len(qualname) > 200 or not QUALNAME.fullmatch(qualname):
        return None
    parts = qualname.split(".")
    while parts and parts[-1].startswith("<"):  # a comprehension's or a lambda's: the function holding it
        parts.pop()
    if parts and parts[-1] == "<locals>":
        parts.pop()
    if not parts:
        return None
    if "<locals>" in parts:  # a nested function (a decorator's wrapper): its own name; the line says where
        return parts[-1]
    return ".".join(parts)


def _a(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _size(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_size(item) for item in value)
    return 64


def _clone(error: SubmissionError) -> SubmissionError:
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    copy.args = error.args
    return copy


def _import_message(header: dict[str, Any], source: Source, limits: Limits) -> str:
    kind, text, line = str(header.get("type"))[:100], str(header.get("message"))[:500], header.get("line")
    where = f" at {source.line_at(line)}" if type(line) is int else ""
    return f"{source.name} could not be imported: {kind}{where}: {text}{_space_hint(kind, text, limits)}"


def _space_hint(kind: str, text: str, limits: Limits) -> str:
    """What a submission that ran out of room to write is told of the room it has."""
    if not kind.endswith("Error"):
        return ""
    if "[Errno 27]" in text:  # EFBIG: RLIMIT_FSIZE
        return f"; a file a submission writes may hold at most {limits.file_size_mb} MiB: the lesson's functions need no files"
    if limits.isolation == "bubblewrap" and ("[Errno 28]" in text or "[Errno 30]" in text):  # ENOSPC, EROFS
        return (
            f"; a submission may write only to /tmp and /dev/shm, which hold {SCRATCH_BYTES // MIB} MiB each "
            "and are emptied before every submission: the lesson's functions need no files"
        )
    return ""


def _pack_request(request: Request, arrays: list[np.ndarray]) -> dict[str, Any]:
    function, args, kwargs, return_args = request
    return {
        "function": function,
        "args": [_pack_argument(arg, arrays) for arg in args],
        "kwargs": {key: _pack_argument(value, arrays) for key, value in kwargs.items()},
        "return_args": return_args,
    }


def _pack_argument(value: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"$array": len(arrays) - 1}
    return value


def _answered(header: dict[str, Any], arrays: list[np.ndarray]) -> Reply:
    """The reply in an ``ok`` frame's header and arrays."""
    after = header.get("args_after", [])
    if not isinstance(after, list):
        raise wire.WireError("args_after is not a list")
    return Reply(wire.unpack(header.get("value"), arrays), [wire.unpack(a, arrays) for a in after])


def answer_of(frame: bytes) -> Reply:
    """The reply a check gets from a worker that sent ``frame`` (an ``ok`` one, see
    wire.answer_frame): what the reference's recorded replies decode to."""
    header, arrays = wire.decode(frame)
    if header.get("status") != "ok":
        raise wire.WireError("not the frame of a call that returned")
    return _answered(header, arrays)
