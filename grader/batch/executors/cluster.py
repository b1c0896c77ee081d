"""Grade a batch on a Dask cluster (``grader grade --scheduler``), with the ``dask`` extra.

The command stays the only writer: it reads each submission, sends its bytes to the
cluster in small batches (tasks), and scores and writes what comes back. A task runs on a
worker in one of the worker's warm check processes (:class:`CheckProcesses`, a Dask
``WorkerPlugin``), so a cluster pays the checks' start-up once per worker, not per
submission; it returns the check results as plain data and writes nothing.

Dask runs a task at least once: a worker that dies mid-task has its tasks run again
elsewhere. Grading is deterministic, so that changes nothing but time; and a task that
keeps killing workers (Dask gives up on it after ``distributed.scheduler.allowed-failures``
deaths) is split into its submissions, each sent again alone, so that only one that kills
workers by itself gets an ``error`` report.

Before any grading the command refuses, in one sentence, a scheduler it cannot reach or
without workers, and workers whose grader (its version, checks, reference or recorded
examples: grader.engine.examples.cache_key) differs from its own, or that cannot start
bubblewrap unless ``--sandbox process`` was given. A worker that joins later is held to
the same by each task.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import queue
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grader import __version__
from grader.assignments import outside
from grader.assignments.rubric import Rubric, load_rubric
from grader.batch.executors import chunk_size
from grader.engine.examples import cache_key
from grader.engine.grading import (
    Outcome,
    Prepared,
    RunFailure,
    check_runs,
    prepare_in_batch,
    report_of,
)
from grader.engine.runner import CheckProcess, CheckResult, CheckRun
from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.sandbox import Limits, bounds, bubblewrap_works
from grader.sources.files import SubmissionFile

try:
    from distributed import Client, KilledWorker, WorkerPlugin, get_worker, wait
except ImportError:  # the dask extra is not installed: only `--scheduler` needs it
    Client = WorkerPlugin = None

PLUGIN_NAME = "attention-grader-checks"
TASKS_PER_THREAD = 2  # tasks sent ahead per worker thread: enough to keep each busy, memory flat
CONNECT_TIMEOUT_S = 10
POLL_S = 1.0  # how often the command looks for overdue tasks
WORKER_START_S = 120
WORKERS_TIMEOUT_S = 60


class WorkerMismatch(Exception):
    """A worker cannot grade as the command would: another grader, or no bubblewrap."""


@dataclass(frozen=True)
class Cluster:
    """Where the scheduler is: an address (``tcp://host:8786``, ``tls://...``) or the file
    ``dask scheduler --scheduler-file`` and dask-jobqueue write."""

    address: str | None = None
    scheduler_file: Path | None = None

    def __str__(self) -> str:
        return self.address or f"the scheduler in {self.scheduler_file}"


class CheckProcesses(WorkerPlugin or object):
    """Each worker's warm check processes, one per task running at once (one with
    ``--nthreads 1``), started as tasks first need them and stopped with the worker."""

    name = PLUGIN_NAME
    idempotent = True  # a second command on the same cluster shares them

    def setup(self, worker: Any = None) -> None:
        self._idle: queue.SimpleQueue[CheckProcess] = queue.SimpleQueue()
        self._started: list[CheckProcess] = []
        _remove_copies_of_stopped_workers()
        # Named with this process's id, so that a later worker removes it if this one is
        # killed before its teardown (it holds the courses' reference heads).
        self._folder = Path(tempfile.mkdtemp(prefix=f"{COPIES_PREFIX}{os.getpid()}-"))
        atexit.register(shutil.rmtree, self._folder, ignore_errors=True)
        self._rubrics: dict[tuple[str, str, str], Rubric] = {}
        self.bubblewrap = bubblewrap_works()

    def teardown(self, worker: Any = None) -> None:
        for checks in self._started:
            checks.__exit__(None, None, None)
        shutil.rmtree(self._folder, ignore_errors=True)

    @contextlib.contextmanager
    def checks(self) -> Iterator[CheckProcess]:
        try:
            checks = self._idle.get_nowait()
        except queue.Empty:
            checks = CheckProcess()
            self._started.append(checks)
        try:
            yield checks
        finally:
            self._idle.put(checks)

    def rubric(self, name: str, text: bytes, assignment: outside.Carried) -> Rubric:
        """The command's rubric of ``assignment``, from its bytes, saved here under its own
        name (a rubric says its file's name and digest in every report); a course's own
        assignment folder is unpacked here too, and loaded."""
        digest = hashlib.sha256(text).hexdigest()
        key = (digest, assignment.spec, outside.files_digest(assignment.files))
        if key not in self._rubrics:
            path = self._folder / digest / name
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(text)
            self._rubrics[key] = load_rubric(path, outside.received(assignment, self._folder / "assignments"))
        return self._rubrics[key]


COPIES_PREFIX = "grader-rubrics-"


def _remove_copies_of_stopped_workers() -> None:
    """Remove the rubrics and course folders a worker of this user left when it was killed
    (its process is gone)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{COPIES_PREFIX}*-*"):
        pid = folder.name[len(COPIES_PREFIX):].split("-", 1)[0]
        try:
            if not pid.isdigit() or folder.is_symlink() or folder.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue  # alive, another user's, or gone meanwhile


def worker_facts(limits: Limits) -> dict[str, Any]:
    """What a worker would grade with (run on each worker by the command)."""
    return {
        "version": __version__,
        "grader": cache_key(),
        "bubblewrap": bubblewrap_works(),
        "bounds": bounds.enforced(limits) if limits.isolation == "process" or bubblewrap_works() else None,
    }


def grade_task(
    submissions: list[tuple[bytes, str]],
    rubric_name: str,
    rubric_text: bytes,
    assignment: outside.Carried,
    limits: Limits,
    grader: str,
) -> dict[str, Any]:
    """Grade ``(content, file_name)`` pairs (grader.engine.grading.Prepared's) on this worker;
    the check results as plain data and the sandbox's bounds here. Runs on a worker."""
    plugin: CheckProcesses = get_worker().plugins[PLUGIN_NAME]
    if cache_key() != grader:
        raise WorkerMismatch(f"this worker runs another grader ({__version__}, checks {cache_key()})")
    if limits.isolation == "bubblewrap" and not plugin.bubblewrap:
        raise WorkerMismatch("bubblewrap cannot start a worker here")
    rubric = plugin.rubric(rubric_name, rubric_text, assignment)
    with plugin.checks() as checks:
        outcomes = check_runs(submissions, rubric, limits, checks)
    return {"bounds": bounds.enforced(limits), "outcomes": [_outcome_data(outcome) for outcome in outcomes]}


def connect(cluster: Cluster, limits: Limits) -> tuple[Client, list[dict[str, Any]]]:
    """A client of ``cluster`` whose workers all grade as this command would, with
    ``limits`` (whose isolation is ``bubblewrap`` or ``process``, never ``auto``), and the
    sandbox bounds they report (grader.sandbox.bounds.enforced); a :class:`UsageError` otherwise."""
    if Client is None:
        raise UsageError(
            "--scheduler needs Dask's distributed: install the grader with its dask extra "
            "(python -m pip install -e '.[dask]' in a clone)"
        )
    try:
        if cluster.scheduler_file is not None:
            client = Client(scheduler_file=str(cluster.scheduler_file), timeout=CONNECT_TIMEOUT_S)
        else:
            client = Client(cluster.address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"cannot reach the Dask scheduler at {cluster}: {error}") from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
    except TimeoutError:
        client.close()
        raise UsageError(f"no Dask worker joined {cluster} within {WORKERS_TIMEOUT_S} s") from None
    facts = client.run(worker_facts, limits)
    problems = _mismatches(facts, limits.isolation)
    if problems:
        client.close()
        raise UsageError(problems)
    client.register_plugin(CheckProcesses())
    # From here the command says in one line what went wrong; Dask's client would also log
    # its tracebacks (a lost scheduler, say) to stderr.
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.startswith("distributed"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    return client, [fact["bounds"] for fact in facts.values()]


def _mismatches(facts: dict[str, dict[str, Any]], isolation: str) -> str | None:
    """One sentence on the workers that cannot grade as this command would, or None."""
    own = cache_key()
    other = sorted(address for address, fact in facts.items() if fact["grader"] != own)
    if other:
        versions = sorted({facts[address]["version"] for address in other})
        return (
            f"{len(other)} of {len(facts)} Dask workers ({', '.join(other[:3])}) run another attention-grader "
            f"({', '.join(versions)}, checks {facts[other[0]]['grader']}) than this command ({__version__}, "
            f"checks {own}): install the same grader everywhere"
        )
    if isolation == "bubblewrap":
        without = sorted(address for address, fact in facts.items() if not fact["bubblewrap"])
        if without:
            return (
                f"{len(without)} of {len(facts)} Dask workers ({', '.join(without[:3])}) cannot start bubblewrap: "
                "install the Debian package 'bubblewrap' there, or pass --sandbox process knowingly"
            )
    return None


def reports(
    files: list[SubmissionFile], rubric: Rubric, limits: Limits, *, client: Client
) -> Iterator[Report]:
    """The report of each of ``files``, graded on ``client``'s cluster (see
    :func:`connect`), in no fixed order; tasks are sent a few at a time, so memory stays
    flat however large the batch.

    A task Dask gives up on (:class:`KilledWorker`), or one still not done long after its
    submissions' budgets (:func:`_deadline`: a task started again each time its worker
    retired, say), is split into single submissions; a single one that fails so gets an
    ``error`` report. So the batch ends, whatever happens to the workers.
    """
    rubric_file = Path(rubric.path)
    carried = outside.carried(rubric.of)
    rubric_args = (rubric_file.name, rubric_file.read_bytes(), carried, limits, cache_key())
    waiting = list(reversed(files))
    in_flight: dict[Any, tuple[list[Prepared], float]] = {}  # future -> its submissions, its deadline

    def send(prepared: list[Prepared]) -> None:
        # Named after its first submission, so the dashboard says what each task grades.
        key = f"grade-{prepared[0].identity['student']}-{len(prepared)}-{uuid.uuid4().hex[:12]}"
        future = client.submit(
            grade_task, [(item.content, item.file_name) for item in prepared], *rubric_args, key=key, retries=0
        )
        in_flight[future] = (prepared, time.monotonic() + _deadline(len(prepared), limits))

    def send_more() -> Iterator[Report]:
        """Send tasks until enough are in flight; then the reports of files that are no submission."""
        threads = sum(client.nthreads().values()) or 1
        unusable = []
        while waiting and len(in_flight) < TASKS_PER_THREAD * threads:
            size = chunk_size(len(waiting), threads)
            chunk = [prepare_in_batch(waiting.pop(), rubric, limits) for _ in range(size)]
            unusable += [item.unusable for item in chunk if item.unusable is not None]
            usable = [item for item in chunk if item.unusable is None]
            if usable:
                send(usable)
        yield from unusable

    def given_up(prepared: list[Prepared], reason: str) -> Iterator[Report]:
        if len(prepared) > 1:
            for item in prepared:
                send([item])
            return
        failure = RunFailure(f"the grader could not finish grading this submission: {reason}", 0.0)
        yield report_of(prepared[0], rubric, failure, None)

    yield from send_more()
    while in_flight:
        try:
            done = wait(list(in_flight), timeout=POLL_S, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            done = set()
        for future in list(in_flight):
            prepared, deadline = in_flight[future]
            if future not in done:
                if time.monotonic() > deadline:
                    del in_flight[future]
                    client.cancel([future])
                    yield from given_up(prepared, f"its task did not end within {_deadline(len(prepared), limits):g} s")
                continue
            del in_flight[future]
            try:
                data = future.result()
            except KilledWorker:
                yield from given_up(prepared, "each cluster worker that tried died before it was done")
            except WorkerMismatch as error:
                raise UsageError(f"a Dask worker cannot grade as this command would: {error}") from None
            except Exception as error:
                # The task broke on its worker, or the scheduler went away: no report for
                # it (an error report would be kept as current); running the command
                # again grades what is missing.
                reason = " ".join(str(error).split())  # Dask's messages run over several lines
                raise GradingFailed(
                    f"the cluster could not grade a task ({type(error).__name__}: {reason}); the reports written so "
                    "far are kept: run the command again to grade the rest"
                ) from None
            else:
                for item, outcome in zip(prepared, data["outcomes"]):
                    yield report_of(item, rubric, _outcome(outcome), data["bounds"])
            future.release()
        yield from send_more()


def _deadline(count: int, limits: Limits) -> float:
    """Seconds a task of ``count`` submissions may stay unfinished: twice their budgets
    (a worker lost late in the first try leaves time for a second), plus a worker's start."""
    return 2 * count * limits.submission_budget + WORKER_START_S


def _outcome_data(outcome: Outcome) -> dict[str, Any]:
    if isinstance(outcome, RunFailure):
        return {"failure": asdict(outcome)}
    return {"run": asdict(outcome)}


def _outcome(data: dict[str, Any]) -> Outcome:
    if "failure" in data:
        return RunFailure(**data["failure"])
    run = data["run"]
    return CheckRun(
        [CheckResult(**result) for result in run["results"]], run["diagnoses"], run["pictures"], run["duration_s"]
    )
