"""Kernel bounds on a whole sandbox (grader.bounds): a fork bomb and a thread bomb are
graded, stop at the bound, and leave the submission beside them untouched; a daemon
that left its session does not outlive its worker."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import REFERENCE, TESTS
from grader import bounds
from grader.batch import grade_folder, read_in_full
from grader.sandbox import Limits, bubblewrap_works

pytestmark = pytest.mark.skipif(
    bounds.enforced() is None, reason="this process may make no cgroup (root on cgroup v1, or pids delegated, can)"
)
BOMBS = sorted((TESTS / "bounded").glob("*.py"))
ISOLATIONS = ["process"] + (["bubblewrap"] if bubblewrap_works() else [])


def threads_on_the_machine() -> int:
    """Every thread on the host (the fourth field of /proc/loadavg: running/total)."""
    return int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_bombs_stop_at_the_bound_and_spare_the_submission_beside_them(tmp_path, rubric, isolation):
    folder = tmp_path / "in"
    folder.mkdir()
    for path in BOMBS:
        shutil.copyfile(path, folder / path.name)
    shutil.copyfile(REFERENCE, folder / "reference.py")
    before = threads_on_the_machine()
    peak, done = [before], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak.append(threads_on_the_machine())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        reports = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation=isolation), jobs=1)
    finally:
        done.set()
        watcher.join()
    scores = {report.student: report.score for report in reports}
    assert {report.bounds["processes"] for report in reports} == {bounds.MAX_PROCESSES}
    # Each bomb answers wrongly only if all of its 200 children or threads could start.
    assert scores == {path.stem: 105.0 for path in BOMBS} | {"reference": 105.0}
    assert max(peak) - before < 150


def test_a_group_bounds_its_processes_and_kills_what_is_left_when_closed():
    bound = bounds.ProcessBound.create(6)
    assert bound is not None
    script = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 30 & done; setsid sleep 30 & wait"
    shell = subprocess.Popen(["/bin/sh", "-c", f"sleep 0.2; {script}"], stderr=subprocess.PIPE, start_new_session=True)
    bound.add(shell.pid)
    time.sleep(1)
    assert bound.current() <= 6
    shell.kill()
    shell.wait()
    assert bound.current() > 0  # the sleeps outlive their shell, the daemon included
    bound.close()
    assert not bound.folder.exists()
    shell.stderr.close()


def test_a_group_left_by_a_killed_grader_is_removed_at_the_next_start():
    stale = bounds.pids_root() / f"{bounds.PREFIX}999999999-0"
    stale.mkdir()
    fresh = bounds.ProcessBound.create()
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
