"""Kernel bounds on a whole sandbox (grader.bounds): a fork bomb and a thread bomb are
graded, stop at the bound, and leave the submission beside them untouched; a daemon
that left its session does not outlive its worker."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import REFERENCE, TESTS
from grader import bounds
from grader.batch import grade_folder, read_in_full
from grader.sandbox import Limits, bubblewrap_works

pytestmark = pytest.mark.skipif(
    None in bounds.enforced(1024).values(),
    reason="this process may make no pids or memory cgroup (root on cgroup v1, or with them delegated, can)",
)
BOMBS = sorted((TESTS / "bounded").glob("*.py"))
ISOLATIONS = ["process"] + (["bubblewrap"] if bubblewrap_works() else [])


def threads_on_the_machine() -> int:
    """Every thread on the host (the fourth field of /proc/loadavg: running/total)."""
    return int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])


@contextlib.contextmanager
def sampled(measure: Callable[[], int]) -> Iterator[list[int]]:
    """``measure()`` every 20 ms while the block runs, into the list it yields."""
    samples, done = [measure()], threading.Event()

    def watch() -> None:
        while not done.is_set():
            samples.append(measure())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        yield samples
    finally:
        done.set()
        watcher.join()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_bombs_stop_at_the_bound_and_spare_the_submission_beside_them(tmp_path, rubric, isolation):
    folder = tmp_path / "in"
    folder.mkdir()
    for path in BOMBS:
        shutil.copyfile(path, folder / path.name)
    shutil.copyfile(REFERENCE, folder / "reference.py")
    before = threads_on_the_machine()
    with sampled(threads_on_the_machine) as peak:
        reports = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation=isolation), jobs=1)
    scores = {report.student: report.score for report in reports}
    assert {report.bounds["processes"] for report in reports} == {bounds.MAX_PROCESSES}
    # Each bomb answers wrongly only if all of its 200 children or threads could start.
    assert scores == {path.stem: 105.0 for path in BOMBS} | {"reference": 105.0}
    assert max(peak) - before < 150


def test_a_group_bounds_its_processes_and_kills_what_is_left_when_closed():
    bound = bounds.SandboxBound.create(256, max_processes=6)
    assert bound is not None
    script = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 30 & done; setsid sleep 30 & wait"
    shell = subprocess.Popen(["/bin/sh", "-c", f"sleep 0.2; {script}"], stderr=subprocess.PIPE, start_new_session=True)
    bound.add(shell.pid)
    time.sleep(1)
    assert bound.processes() <= 6
    shell.kill()
    shell.wait()
    assert bound.processes() > 0  # the sleeps outlive their shell, the daemon included
    bound.close()
    assert not any(folder.exists() for folder in bound.groups.values())
    shell.stderr.close()


def test_a_group_left_by_a_killed_grader_is_removed_at_the_next_start():
    stale = bounds.roots()["pids"] / f"{bounds.PREFIX}999999999-0"
    stale.mkdir()
    fresh = bounds.SandboxBound.create(256)
    try:
        assert not stale.exists()
    finally:
        fresh.close()
        if stale.exists():
            stale.rmdir()
    assert os.getpid()  # the grader's own process is never in a group


def test_a_head_that_hits_the_bound_is_told_why(tmp_path, rubric):
    # Forks in every softmax call, and never catches the refusal.
    forking = (
        "def softmax(x, axis=-1):\n    for _ in range(100):\n"
        "        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n"
    )
    head = tmp_path / "in" / "forks.py"
    head.parent.mkdir()
    head.write_text("import os\nimport time\n" + REFERENCE.read_text().replace("def softmax(x, axis=-1):\n", forking))
    graded = grade_folder(head.parent, tmp_path / "out", rubric, Limits(isolation=ISOLATIONS[-1]), jobs=1)
    (report,) = read_in_full(tmp_path / "out", graded)
    rows = next(check for check in report.checks if check.id == "softmax.rows_sum_to_one")
    assert rows.status == "error" and "BlockingIOError" in rows.feedback
    assert "only a few processes and threads" in rows.feedback


def available_memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_children_that_each_hold_most_of_the_cap_are_held_to_the_sandboxs_memory(tmp_path, rubric, isolation):
    # Eight children of 300 MiB each, under a 512 MiB cap per process: 2.4 GiB unbounded,
    # at most 768 MiB for the sandbox as a whole.
    holding = (
        "def softmax(x, axis=-1):\n"
        "    global HELD\n"
        "    if HELD is None:\n"
        "        HELD = []\n"
        "        for _ in range(8):\n"
        "            ready, told = os.pipe()\n"
        "            if os.fork() == 0:\n"
        "                block = b'1' * (300 * 1024 * 1024)  # written, so it is really held\n"
        "                os.write(told, b'1')\n"
        "                time.sleep(5)\n"
        "                os._exit(0)\n"
        "            os.close(told)\n"
        "            HELD.append(os.read(ready, 1))  # held, or b'' if the child was killed\n"
    )
    folder = tmp_path / "in"
    folder.mkdir()
    source = REFERENCE.read_text().replace("def softmax(x, axis=-1):\n", holding)
    (folder / "holds_memory.py").write_text("import os\nimport time\nHELD = None\n" + source)
    shutil.copyfile(REFERENCE, folder / "reference.py")
    before = available_memory_mb()
    limits = Limits(isolation=isolation, memory_mb=512)
    with sampled(available_memory_mb) as lowest:
        reports = {r.student: r for r in grade_folder(folder, tmp_path / "out", rubric, limits, jobs=1)}
    assert reports["reference"].score == 105.0
    assert reports["holds_memory"].status == "graded"
    assert reports["holds_memory"].bounds == {"processes": bounds.MAX_PROCESSES, "memory_mb": 512 + bounds.OVERHEAD_MB}
    assert before - min(lowest) < 1536
