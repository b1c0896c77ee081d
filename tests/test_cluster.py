"""Grading a batch on a Dask cluster: a LocalCluster, and a real `dask scheduler` with
`dask worker` processes started (and stopped) by the tests. Reports must be those of
local jobs, whatever happens to the workers, and the command refuses a cluster it cannot
trust before grading anything."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import HEADS, REFERENCE, ROOT, TESTS, VARIANTS

from grader.batch import grade_folder
from grader.cli import cli
from grader.report import to_json
from grader.sandbox import Limits
from grader.sources.files import SubmissionFile

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402  (installed with distributed)

from grader.batch.executors import cluster  # noqa: E402

DASK = Path(sys.executable).parent / "dask"
LOOPS = TESTS / "hostile" / "loops_forever_in_attention.py"  # about 14 s: long enough to be killed in
# Dask's own shutdown and reconnection noise is none of these tests' business.
pytestmark = pytest.mark.filterwarnings("ignore")


def _folder(tmp_path: Path, *, slow: bool = False) -> Path:
    """Heads of every kind: correct, buggy, a notebook, a syntax error, a file that is no
    submission at all; with ``slow``, a looping head first, to be in flight when a worker dies."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    if slow:
        shutil.copyfile(LOOPS, folder / "a-loops.py")
    heads = [REFERENCE, *sorted(VARIANTS.glob("*.py"))[:6], TESTS / "submissions" / "syntax_error.py"]
    for number, head in enumerate(heads):
        shutil.copyfile(head, folder / f"s{number:02d}.py")
    shutil.copyfile(TESTS / "notebooks" / "classic_missing_scale.ipynb", folder / "nb.ipynb")
    (folder / "zz-empty.py").write_text("\n")
    return folder


def _reports(out: Path) -> dict[str, dict]:
    """Every report in ``out`` without its timing."""
    found = {}
    for path in out.glob("*.json"):
        if path.name != "summary.json":
            report = json.loads(path.read_text())
            report.pop("duration_s")
            report.pop("signature")  # under each reports folder's own key (grader.batch.signing)
            found[path.stem] = report
    return found


def _local_reports(folder: Path, tmp_path: Path, rubric, limits: Limits) -> dict[str, dict]:
    out = tmp_path / "local"
    grade_folder(folder, out, rubric, limits, jobs=1)
    return _reports(out)


def _wait_for(predicate, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def local_cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


def test_a_local_cluster_gives_the_reports_of_local_jobs(tmp_path, rubric, isolation, local_cluster):
    folder = _folder(tmp_path)
    limits = Limits(isolation=isolation)
    client, bounds = cluster.connect(cluster.Cluster(local_cluster.scheduler_address), limits)
    with client:
        out = tmp_path / "cluster"
        grade_folder(folder, out, rubric, limits, executor=functools.partial(cluster.reports, client=client))
    assert _reports(out) == _local_reports(folder, tmp_path, rubric, limits)
    assert len(_reports(out)) == 10 and bounds and all(found == bounds[0] for found in bounds)


def _kill_the_worker_grading(client, student: str, *, alone: bool = False) -> str:
    """SIGKILL the worker process whose running task grades ``student`` first (tasks are
    named after their first submission), once it has run for a second, and, with
    ``alone``, once it is the only task of its worker; return the task's key."""

    def found() -> tuple[str, str] | None:
        for address, keys in client.processing().items():
            for key in keys:
                if _grades(key, student) and (not alone or list(keys) == [key]):
                    return address, key
        return None

    _wait_for(lambda: found() is not None)
    time.sleep(1)
    _wait_for(lambda: found() is not None)
    address, key = found()
    (pid,) = client.run(os.getpid, workers=[address]).values()
    os.kill(pid, signal.SIGKILL)
    return key


def _grades(key: str, student: str) -> bool:
    return str(key).startswith(f"grade-{student}-")


def test_a_task_whose_workers_keep_dying_is_split_and_then_given_up(tmp_path, rubric, isolation, monkeypatch):
    """With no retry allowed, a kill fails the task at once. The first kill fails the
    looping head's task of several, which is split into single submissions, graded again;
    the second, while the looping head is graded alone, gives it an error report. A
    worker is killed only while its one task is the looping head's."""
    folder = _folder(tmp_path, slow=True)
    # The looping head is graded in about 30 s, so the others are all done before it.
    limits = Limits(isolation=isolation, call_timeout=15.0)
    monkeypatch.setattr(cluster, "TASKS_PER_THREAD", 1)  # one task per worker, but for the split ones
    arrived = []

    def consume(reports) -> None:
        for report in reports:
            arrived.append(report)

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        client, _ = cluster.connect(cluster.Cluster(local.scheduler_address), limits)
        with client:
            files = [SubmissionFile(path.stem, path, folder) for path in sorted(folder.iterdir())]
            consumer = threading.Thread(target=consume, args=(cluster.reports(files, rubric, limits, client=client),))
            consumer.start()
            first = _kill_the_worker_grading(client, "a-loops", alone=True)
            _wait_for(lambda: len(arrived) == 10)  # every other submission: nothing else is in flight
            second = _kill_the_worker_grading(client, "a-loops")
            consumer.join(timeout=300)
    assert not first.startswith("grade-a-loops-1-") and second.startswith("grade-a-loops-1-")  # several, then alone
    by_student = {report.student: report for report in arrived}
    assert len(arrived) == 11 and sorted(by_student) == sorted(path.stem for path in folder.iterdir())
    looping = by_student.pop("a-loops")
    assert looping.status == "error" and "could not finish grading this submission" in looping.error
    (folder / "a-loops.py").unlink()
    local = _local_reports(folder, tmp_path, rubric, limits)
    for student, report in by_student.items():
        data = json.loads(to_json(report))
        data.pop("duration_s")
        assert data == local[student], student


def test_a_task_that_never_ends_is_given_up(tmp_path, rubric, isolation, monkeypatch):
    """A worker that retires every 4 s never finishes the looping head (about 10 s), and
    Dask starts its task again each time without counting a failure; the command gives
    it up at its deadline (twice its budget here) with an error report."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(LOOPS, folder / "loops.py")
    limits = Limits(isolation=isolation, submission_budget=15.0)
    monkeypatch.setattr(cluster, "WORKER_START_S", 0.0)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, lifetime="4s", lifetime_restart=True
    ) as local:
        client, _ = cluster.connect(cluster.Cluster(local.scheduler_address), limits)
        with client:
            started = time.monotonic()
            arrived = []
            reports = cluster.reports([SubmissionFile("loops", folder / "loops.py", folder)], rubric, limits, client=client)
            consumer = threading.Thread(target=lambda: arrived.extend(reports), daemon=True)
            consumer.start()
            consumer.join(timeout=120)  # without a deadline it would wait forever
            assert not consumer.is_alive()
    assert 30 <= time.monotonic() - started < 60
    (report,) = arrived
    assert report.status == "error"
    assert report.error == "the grader could not finish grading this submission: its task did not end within 30 s"


class Processes:
    """`dask scheduler` and `dask worker` commands, each in a session of its own with its
    output in a file (an inherited pipe could hang the test), stopped by process group."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.scheduler_file = folder / "scheduler.json"
        self.started: list[subprocess.Popen] = []

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        with open(self.folder / f"dask-{len(self.started)}.log", "wb") as log:
            process = subprocess.Popen(
                [str(DASK), *args], stdout=log, stderr=log, start_new_session=True, env=env, cwd=self.folder
            )
        self.started.append(process)
        return process

    def scheduler(self) -> None:
        self.start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(self.scheduler_file))
        _wait_for(self.scheduler_file.exists, 60)

    def worker(self, env: dict[str, str] | None = None) -> None:
        self.start(
            "worker", "--scheduler-file", str(self.scheduler_file), "--nthreads", "1", "--no-dashboard",
            "--host", "127.0.0.1", env=env,
        )

    def client(self):
        return distributed.Client(scheduler_file=str(self.scheduler_file), timeout=30)

    def stop(self) -> None:
        for process in self.started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def dask_commands(tmp_path_factory):
    """A scheduler and two workers, as an instructor starts them on a few machines."""
    processes = Processes(tmp_path_factory.mktemp("dask"))
    try:
        processes.scheduler()
        processes.worker()
        processes.worker()
        with processes.client() as client:
            client.wait_for_workers(2, timeout=60)
        yield processes
    finally:
        processes.stop()


def _grade_command(folder: Path, out: Path, isolation: str, *where: str) -> list[str]:
    return [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--sandbox", isolation, *where]


def test_a_worker_killed_mid_batch_loses_nothing(tmp_path, rubric, isolation, dask_commands):
    folder = _folder(tmp_path, slow=True)
    out = tmp_path / "cluster"
    command = _grade_command(folder, out, isolation, "--scheduler-file", str(dask_commands.scheduler_file))
    batch = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with dask_commands.client() as client:
        _kill_the_worker_grading(client, "a-loops")  # its nanny starts it again
    stdout, stderr = batch.communicate(timeout=300)
    assert batch.returncode == 0, stderr
    assert "graded 11 submissions" in stdout
    assert _reports(out) == _local_reports(folder, tmp_path, rubric, Limits(isolation=isolation))


def test_a_killed_command_resumes_on_the_cluster(tmp_path, isolation, dask_commands):
    folder = _folder(tmp_path, slow=True)
    out = tmp_path / "cluster"
    command = _grade_command(folder, out, isolation, "--scheduler-file", str(dask_commands.scheduler_file))
    batch = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(lambda: len(list(out.glob("s*.json"))) >= 2)
    batch.kill()
    batch.wait()
    done = {path.name: path.read_text() for path in out.glob("*.json")}
    assert "a-loops.json" not in done and len(done) < 11
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"graded {11 - len(done)} submissions" in result.stdout and f"({len(done)} kept" in result.stdout
    assert {name: (out / name).read_text() for name in done} == done
    assert len(list(out.glob("*.json"))) == 12  # and summary.json


def test_an_unreachable_scheduler_is_refused_in_one_line(tmp_path, isolation):
    folder = _folder(tmp_path)
    result = subprocess.run(
        _grade_command(folder, tmp_path / "out", isolation, "--scheduler", "tcp://127.0.0.1:1"),
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("grader: error:")]
    assert errors == [line for line in result.stderr.splitlines() if not line.startswith("grader: warning:")]
    assert len(errors) == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in errors[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"], "--jobs is for this machine's cores"),
        (["--scheduler", "tcp://127.0.0.1:1", "--scheduler-file", "{file}"], "not both"),
    ],
)
def test_options_that_contradict_a_cluster_are_refused(tmp_path, options, message):
    (tmp_path / "s.json").write_text("{}")
    arguments = [option.format(file=tmp_path / "s.json") for option in options]
    result = CliRunner().invoke(cli, ["grade", str(_folder(tmp_path)), "--out", str(tmp_path / "out"), *arguments])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "out").exists()


def _another_grader(folder: Path) -> Path:
    """A copy of this grader under another version, as on a machine nobody upgraded."""
    for part in ("grader", "reference", "rubrics"):
        shutil.copytree(ROOT / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    init = folder / "grader" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "0.0.1+old-'))
    return folder


@pytest.mark.parametrize("worker", ["another grader", "no bubblewrap"])
def test_a_worker_that_cannot_grade_as_the_command_is_refused(tmp_path, isolation, worker):
    if worker == "no bubblewrap" and isolation != "bubblewrap":
        pytest.skip("the command asks for bubblewrap only where it has it")
    processes = Processes(tmp_path)
    environment = dict(os.environ)
    if worker == "another grader":
        environment["PYTHONPATH"] = str(_another_grader(tmp_path / "old"))
    else:
        environment["PATH"] = str(tmp_path / "no-bwrap-here")
    try:
        processes.scheduler()
        processes.worker(env=environment)
        folder = _folder(tmp_path)
        result = subprocess.run(
            _grade_command(folder, tmp_path / "out", isolation, "--scheduler-file", str(processes.scheduler_file)),
            cwd=ROOT, capture_output=True, text=True, timeout=180,
        )
    finally:
        processes.stop()
    assert result.returncode == 2, result.stderr
    expected = "run another attention-grader (0.0.1+old-" if worker == "another grader" else "cannot start bubblewrap"
    assert expected in result.stderr
    assert not list((tmp_path / "out").glob("*.json"))


def test_a_killed_workers_copies_of_courses_are_removed_by_the_next_worker(tmp_path):
    """A worker killed before its teardown leaves its unpacked courses (reference heads
    included) in the temporary folder; the next worker to start on the machine removes them,
    and never a live worker's."""
    import tempfile

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    root = Path(tempfile.gettempdir())
    left = root / f"{cluster.COPIES_PREFIX}{gone.pid}-test"
    alive = root / f"{cluster.COPIES_PREFIX}{os.getpid()}-test"
    for folder in (left, alive):
        (folder / "assignments" / "course").mkdir(parents=True)
        (folder / "assignments" / "course" / "solution.py").write_text("answers\n")
    try:
        plugin = cluster.CheckProcesses()
        plugin.setup()
        plugin.teardown()
        assert not left.exists() and alive.exists() and not plugin._folder.exists()
    finally:
        for folder in (left, alive):
            shutil.rmtree(folder, ignore_errors=True)
