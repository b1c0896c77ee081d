"""Kernel bounds on a whole sandbox (grader.sandbox.bounds): a fork bomb and a thread bomb are
graded, stop at the bound, and leave the submission beside them untouched, whether a
cgroup or RLIMIT_NPROC holds them; memory is held for the sandbox as a whole, and a
worker the kernel kills for it is told why; a daemon that left its session does not
outlive its worker; a grader run by root starts bubblewrap as uid 65534 where it can."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import NEEDS_ROOT_AND_SYSTEM_PYTHON, REFERENCE, TESTS

from grader.assignments.rubric import load_rubric
from grader.batch import grade_folder, read_in_full
from grader.report import Report, from_json
from grader.sandbox import NOBODY_ID, Limits, bounds, bubblewrap_works, drop_to_nobody

NEEDS_CGROUPS = pytest.mark.skipif(
    not {"pids", "memory"} <= set(bounds.roots()),
    reason="this process may make no pids or memory cgroup (root on cgroup v1, or with them delegated, can)",
)
BOMBS = sorted((TESTS / "bounded").glob("*.py"))
ISOLATIONS = ["process"] + (["bubblewrap"] if bubblewrap_works() else [])
MAX_PROCESSES = Limits().max_processes


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


def sandbox_uids(ancestor: int) -> set[int]:
    """The real uids of the processes under ``ancestor`` running a zygote (bwrap's
    included) or a plain worker (other graders on the machine are not counted)."""
    uids = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            command = (status.parent / "cmdline").read_bytes()
            if b".grader/zygote.py" not in command and b".grader/worker.py" not in command:
                continue
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            if _descends_from(int(status.parent.name), ancestor):
                uids.add(int(fields["Uid"].split()[0]))
        except (OSError, KeyError, ValueError):
            continue  # ended while it was read
    return uids


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent
    return False


def bombs_beside_the_reference(folder: Path) -> Path:
    folder.mkdir()
    for path in BOMBS:
        shutil.copyfile(path, folder / path.name)
    shutil.copyfile(REFERENCE, folder / "reference.py")
    return folder


def assert_every_bomb_held(reports: list[Report], peak: list[int], before: int) -> None:
    # Each bomb answers wrongly only if all of its 200 children or threads could start.
    assert {report.student: report.score for report in reports} == {path.stem: 105.0 for path in BOMBS} | {
        "reference": 105.0
    }
    assert max(peak) - before < 150


@NEEDS_CGROUPS
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_bombs_stop_at_the_bound_and_spare_the_submission_beside_them(tmp_path, rubric, isolation):
    folder = bombs_beside_the_reference(tmp_path / "in")
    before = threads_on_the_machine()
    with sampled(threads_on_the_machine) as peak, sampled(lambda: sandbox_uids(os.getpid())) as uids:
        reports = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation=isolation), jobs=1)
    assert {report.bounds["processes"] for report in reports} == {MAX_PROCESSES}
    assert all(report.bounds["processes_by"][0].startswith("cgroup v") for report in reports)
    assert set().union(*uids) == {report.bounds["uid"] for report in reports}  # as the reports say
    assert_every_bomb_held(reports, peak, before)


@NEEDS_ROOT_AND_SYSTEM_PYTHON
@pytest.mark.bubblewrap
@pytest.mark.parametrize("grader", ["root", "root without cgroups", "an ordinary user"])
def test_bubblewrap_is_started_unprivileged_and_its_own_rlimit_holds_the_bombs(python_nobody_can_run, grader):
    # Root starts bwrap as 65534; with cgroups hidden (a private mount namespace with an
    # empty /sys/fs/cgroup), or for a grader run by an ordinary user (who can make none),
    # only RLIMIT_NPROC can hold the bombs: it does only because the sandbox is not root.
    shared = Path(tempfile.mkdtemp(prefix="grader-test-bounds-"))  # reachable by 65534, unlike tmp_path
    try:
        shared.chmod(0o755)
        os.chown(shared, NOBODY_ID, NOBODY_ID)
        folder = bombs_beside_the_reference(shared / "in")
        out = shared / "out"
        command = [str(python_nobody_can_run), "-m", "grader", "grade", str(folder), "--out", str(out), "--jobs", "1"]
        if grader == "root without cgroups":
            hide = 'mount -t tmpfs cgroups-hidden /sys/fs/cgroup && exec "$@"'
            command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh", *command]
        as_user = grader == "an ordinary user"
        if as_user:
            for path in (folder, *folder.iterdir()):
                os.chown(path, NOBODY_ID, NOBODY_ID)
        environment = {"PATH": "/usr/bin:/bin", "HOME": str(shared), "LANG": "C.UTF-8"} if as_user else None
        before = threads_on_the_machine()
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=shared, env=environment,
            preexec_fn=drop_to_nobody if as_user else None,
        ) as grading:
            with sampled(threads_on_the_machine) as peak, sampled(lambda: sandbox_uids(grading.pid)) as uids:
                _, stderr = grading.communicate(timeout=600)
        assert grading.returncode == 0, stderr[-2000:]
        reports = [from_json(path.read_text()) for path in sorted(out.glob("*.json")) if path.stem != "summary"]
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    assert_every_bomb_held(reports, peak, before)
    assert set().union(*uids) == {NOBODY_ID}
    cgroups = grader == "root"
    cgroup_kinds = [name for name in ("cgroup v1", "cgroup v2") if cgroups and name in reports[0].bounds["processes_by"]]
    for report in reports:
        assert report.bounds["uid"] == NOBODY_ID
        assert report.bounds["processes"] == MAX_PROCESSES
        assert report.bounds["processes_by"] == [*cgroup_kinds, "RLIMIT_NPROC"]
        assert (report.bounds["memory_mb"] is None) == (not cgroups)
    assert ("no kernel bound on a sandbox's memory" in stderr) == (not cgroups)
    assert "root outside" not in stderr


@NEEDS_CGROUPS
def test_a_group_bounds_its_processes_and_kills_what_is_left_when_closed():
    bound = bounds.SandboxBound.create(Limits(memory_mb=256, max_processes=6))
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


@NEEDS_CGROUPS
def test_a_group_left_by_a_killed_grader_is_removed_at_the_next_start():
    stale = bounds.roots()["pids"] / f"{bounds.PREFIX}999999999-0"
    stale.mkdir()
    fresh = bounds.SandboxBound.create(Limits(memory_mb=256))
    try:
        assert not stale.exists()
    finally:
        fresh.close()
        if stale.exists():
            stale.rmdir()
    assert os.getpid()  # the grader's own process is never in a group


@NEEDS_CGROUPS
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


@NEEDS_CGROUPS
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
    assert reports["holds_memory"].bounds["memory_mb"] == 512 + bounds.OVERHEAD_MB
    assert before - min(lowest) < 1536


@NEEDS_CGROUPS
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_worker_the_kernel_kills_for_the_sandboxs_memory_is_told_why(tmp_path, isolation):
    # Under a 512 MiB cap per process the sandbox may hold 768 MiB: two children hold 300
    # each, and the worker then 200. The worker makes itself the kernel's first choice to
    # kill (anyone may raise their own oom_score_adj), so which process dies is not left
    # to chance.
    holding = (
        "def softmax(x, axis=-1):\n"
        "    for _ in range(2):\n"
        "        ready, told = os.pipe()\n"
        "        if os.fork() == 0:\n"
        "            block = b'1' * (300 * 1024 * 1024)\n"
        "            os.write(told, b'1')\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "        os.read(ready, 1)\n"
        "    with open('/proc/self/oom_score_adj', 'w') as adjust:\n"
        "        adjust.write('1000')\n"
        "    block = b'1' * (200 * 1024 * 1024)\n"
    )
    head = tmp_path / "in" / "outgrows_the_sandbox.py"
    head.parent.mkdir()
    head.write_text("import os\nimport time\n" + REFERENCE.read_text().replace("def softmax(x, axis=-1):\n", holding))
    # Its children hold the worker's reply pipe, so the check sees the crash only at the
    # call's deadline (not as a timeout: the worker has ended by then). One check keeps
    # the test short; the default deadline leaves the kernel time even on a busy machine.
    one_check = tmp_path / "one_check.toml"
    one_check.write_text('name = "one"\n[[checks]]\nid = "softmax.rows_sum_to_one"\npoints = 1\n')
    limits = Limits(isolation=isolation, memory_mb=512)
    graded = grade_folder(head.parent, tmp_path / "out", load_rubric(one_check), limits, jobs=1)
    (report,) = read_in_full(tmp_path / "out", graded)
    rows = next(check for check in report.checks if check.id == "softmax.rows_sum_to_one")
    assert rows.status == "error"
    assert "killed for holding more than the sandbox's 768 MiB of memory" in rows.feedback


@pytest.mark.skipif("cpu" not in bounds.roots() or (os.cpu_count() or 1) < 2, reason="needs a cpu cgroup and two cores")
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_sandbox_is_held_to_one_cpu_whatever_it_spins(tmp_path, rubric, isolation):
    """Four processes spinning for a second in one sandbox use about a second of CPU between
    them (the head measures it, and refuses to import otherwise): a student's spinners
    take their own sandbox's CPU, not the other jobs'."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(TESTS / "submissions" / "measures_its_cpu_share.py", folder / "spinner.py")
    (report,) = grade_folder(folder, tmp_path / "out", rubric, Limits(isolation=isolation), jobs=1)
    assert report.bounds["cpus"] == bounds.SANDBOX_CPUS and report.bounds["cpus_by"][0].startswith("cgroup v")
    (full,) = read_in_full(tmp_path / "out", [report])
    assert report.score == 105.0, [check.feedback for check in full.checks if check.feedback][:1]
