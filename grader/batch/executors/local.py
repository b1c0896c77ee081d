"""Grade a batch on this machine's cores: one long-lived check process per job.

Each job takes the next few submissions from the batch's queue and grades them in one
check run (a pytest session's start-up is paid once for several); fewer at a time as the
queue drains, so no job waits long for the last run of another. When the queue is empty,
a job with nothing to do takes over half of the submissions another job's run has not
started yet (grader.engine.claims), so a slow submission never holds up those behind it: a
batch's wall time stays close to its total grading time over its jobs, wherever its slow
submissions are in the folder.
"""

from __future__ import annotations

import contextlib
import queue
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grader.assignments.rubric import Rubric
from grader.batch.executors import chunk_size
from grader.engine.claims import Claims
from grader.engine.grading import Prepared, check_runs, prepare_in_batch, report_of
from grader.engine.runner import CheckProcess
from grader.report import Report
from grader.sandbox import Limits, bounds
from grader.sources.files import SubmissionFile

_POLL_S = 0.2  # how often the waiting command looks up, so that Ctrl-C reaches it


@dataclass
class _Work:
    """One submission to grade: its file, and what was read of it once it has been."""

    file: SubmissionFile
    prepared: Prepared | None = None


@dataclass(frozen=True)
class _Run:
    work: list[_Work]
    claims: Claims


class _Schedule:
    """Which submissions each job grades next (see the module docstring); thread-safe."""

    def __init__(self, files: list[SubmissionFile], jobs: int, claims_root: Path) -> None:
        self._waiting = deque(_Work(file) for file in files)
        self._jobs = jobs
        self._claims_root = claims_root
        self._running: list[_Run] = []
        self._runs = 0
        self._lock = threading.Lock()
        self.stopped = False

    def next_work(self) -> list[_Work]:
        """The next submissions for a job to grade; none when the batch is done or stopped."""
        with self._lock:
            if self.stopped:
                return []
            if self._waiting:
                return [self._waiting.popleft() for _ in range(chunk_size(len(self._waiting), self._jobs))]
            runs = [(len(run.claims.unstarted()), run) for run in self._running]
            unstarted, run = max(runs, key=lambda pair: pair[0], default=(0, None))
            if not unstarted:
                return []
            return [run.work[index] for index in run.claims.take_over((unstarted + 1) // 2)]

    def start(self, work: list[_Work]) -> _Run:
        """``work``, prepared and about to be graded in one check run, whose unstarted
        submissions other jobs may now take over."""
        with self._lock:
            self._runs += 1
            folder = self._claims_root / str(self._runs)
            folder.mkdir()
            run = _Run(work, Claims(folder, len(work)))
            self._running.append(run)
            return run

    def finish(self, run: _Run) -> None:
        with self._lock:
            self._running.remove(run)


def reports(files: list[SubmissionFile], rubric: Rubric, limits: Limits, *, jobs: int) -> Iterator[Report]:
    """The report of each of ``files``, as its run finishes, in no fixed order.

    Closing the iterator (Ctrl-C, say) starts nothing new and waits for the runs in flight,
    whose reports are dropped.
    """
    results: queue.SimpleQueue[Report | BaseException | None] = queue.SimpleQueue()
    with contextlib.ExitStack() as stack:
        schedule = _Schedule(files, jobs, Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="grader-claims-"))))
        sandbox_bounds = bounds.enforced(limits)
        threads = [
            threading.Thread(
                target=_job, args=(schedule, stack.enter_context(CheckProcess()), rubric, limits, sandbox_bounds, results)
            )
            for _ in range(min(jobs, len(files)))
        ]
        for thread in threads:
            thread.start()
        try:
            running = len(threads)
            while running:
                try:
                    result = results.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if result is None:
                    running -= 1
                elif isinstance(result, BaseException):
                    raise result
                else:
                    yield result
        finally:
            schedule.stopped = True
            for thread in threads:
                thread.join()


def _job(
    schedule: _Schedule,
    checks: CheckProcess,
    rubric: Rubric,
    limits: Limits,
    sandbox_bounds: dict,
    results: queue.SimpleQueue,
) -> None:
    try:
        while work := schedule.next_work():
            for item in work:
                if item.prepared is None:
                    item.prepared = prepare_in_batch(item.file, rubric, limits)
                if item.prepared.unusable is not None:
                    results.put(item.prepared.unusable)
            usable = [item for item in work if item.prepared.unusable is None]
            if not usable:
                continue
            run = schedule.start(usable)
            try:
                outcomes = check_runs(
                    [(item.prepared.content, item.prepared.file_name) for item in run.work], rubric, limits, checks, run.claims
                )
            finally:
                schedule.finish(run)
            for item, outcome in zip(run.work, outcomes):
                if outcome is not None and not schedule.stopped:
                    results.put(report_of(item.prepared, rubric, outcome, sandbox_bounds))
    except BaseException as error:  # the command raises it; nothing is lost silently
        results.put(error)
    finally:
        results.put(None)
