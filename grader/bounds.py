"""Kernel-enforced bounds on a whole sandbox: how many processes and threads it may hold.

RLIMIT_NPROC does not bound a sandbox the grader starts as root (the kernel exempts
root, and bubblewrap maps the worker's uid 65534 onto real root), and an unbounded fork
bomb would fill the host's process table. So where the grader can make a cgroup (cgroup
v1's ``pids`` hierarchy, or v2 where the ``pids`` controller is delegated to the
grader's own group), each sandbox runs in one with ``pids.max``: a fork or a thread past
it fails with EAGAIN inside the sandbox, whatever the uid, and no other process on the
machine notices. Where no cgroup can be made, :meth:`ProcessBound.create` returns None
and :func:`enforced` says so, for the report and the command.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from functools import cache
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
PREFIX = "attention-grader-"
# A worker needs one process and one thread; bubblewrap, the zygote and a worker being
# replaced add a few. A head never needs to fork.
MAX_PROCESSES = 32
REMOVE_TRIES = 50
_numbers = itertools.count()


class ProcessBound:
    """One cgroup with ``pids.max``, for one sandbox; its processes join it before exec."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def create(cls, max_processes: int = MAX_PROCESSES) -> ProcessBound | None:
        """A new group, or None where this process cannot make one."""
        root = pids_root()
        if root is None:
            return None
        _remove_stale(root)
        folder = root / f"{PREFIX}{os.getpid()}-{next(_numbers)}"
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(f"{max_processes}\n")
        except OSError:
            _remove(folder)
            return None
        return cls(folder)

    def join(self) -> None:
        """Move the calling process into the group: Popen's ``preexec_fn``, so the child
        is bounded from before it execs (which Popen runs after it drops privileges, so
        only for a child that keeps them)."""
        self.add(os.getpid())

    def add(self, pid: int) -> None:
        """Move process ``pid`` into the group (its later children are in it too)."""
        with open(self.folder / "cgroup.procs", "w") as procs:
            procs.write(str(pid))

    def current(self) -> int:
        """How many processes and threads the group holds now."""
        return int((self.folder / "pids.current").read_text())

    def close(self) -> None:
        """Kill whatever is still in the group (a daemon that left its session included),
        then remove the group."""
        try:
            pids = (self.folder / "cgroup.procs").read_text().split()
        except OSError:
            pids = []
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError, ValueError):
                pass
        _remove(self.folder)


@cache
def pids_root() -> Path | None:
    """The folder where this process may make ``pids`` groups, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            candidate = CGROUPS / "pids" / path.lstrip("/")
        elif controllers == "" and "pids" in _delegated(CGROUPS / path.lstrip("/")):
            candidate = CGROUPS / path.lstrip("/")
        else:
            continue
        if (candidate / "cgroup.procs").exists() and os.access(candidate, os.W_OK):
            return candidate
    return None


def enforced() -> int | None:
    """The process bound each sandbox gets on this machine, or None where there is none."""
    return MAX_PROCESSES if pids_root() is not None else None


def _delegated(folder: Path) -> set[str]:
    try:
        return set((folder / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def _remove(folder: Path) -> None:
    for _ in range(REMOVE_TRIES):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # processes still being reaped
            time.sleep(0.01)


def _remove_stale(root: Path) -> None:
    """Groups left by grader processes that were killed before they could remove them."""
    for folder in root.glob(f"{PREFIX}*"):
        owner = folder.name.removeprefix(PREFIX).partition("-")[0]
        if owner.isdigit() and not _alive(int(owner)):
            try:
                folder.rmdir()
            except OSError:
                pass  # still holds processes: the next start tries again


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
