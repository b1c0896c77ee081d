"""Kernel-enforced bounds on a whole sandbox: how many processes and threads it may hold,
how much memory all of them together, and how much of the machine's CPU.

RLIMIT_AS bounds each process, not their sum, so a few dozen children each near the cap
would exhaust the host's memory; and an unbounded fork bomb would fill its process table.
Two mechanisms bound a sandbox as a whole, each where the machine allows it:

- cgroups, where the grader can make them (root on cgroup v1's ``pids``, ``memory`` and
  ``cpu`` hierarchies, or v2 where those controllers are delegated to the grader's own
  group): each sandbox runs in groups with ``pids.max``, a memory limit, and a CPU quota
  of :data:`SANDBOX_CPUS` (a worker computes on one thread: numpy's BLAS is held to
  one). Thirty processes spinning in one sandbox then share that one CPU among
  themselves, and the other jobs' sandboxes keep theirs: one student cannot slow the
  others' grading, nor push their calls past a timeout;
- RLIMIT_NPROC, which every bubblewrap worker sets on itself (grader.sandbox): the kernel
  counts it per user namespace, so it holds the sandbox's own processes alone, but only
  where the sandbox is not root outside (root is exempt): a grader run by an ordinary
  user, or by root where it starts bubblewrap as uid 65534.

A fork or a thread past the bound fails with EAGAIN inside the sandbox, and past the
memory bound the kernel's OOM killer picks its victim inside the sandbox; no other
process on the machine notices. :func:`enforced` says which bounds hold and by what,
for the report and the command.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from functools import cache
from pathlib import Path
from typing import Any

from grader.sandbox import Limits, sandbox_uid

CGROUPS = Path("/sys/fs/cgroup")
PREFIX = "attention-grader-"
# A sandbox's memory: its worker's address-space cap, and room for the zygote (numpy
# imported, about 40 MiB) and the sandbox's small /tmp and /dev/shm.
OVERHEAD_MB = 256
REMOVE_TRIES = 50
# The file that sets each controller's limit, in cgroup v1 and v2.
LIMIT_FILES = {
    "pids": ("pids.max", "pids.max"),
    "memory": ("memory.limit_in_bytes", "memory.max"),
    "cpu": ("cpu.cfs_quota_us", "cpu.max"),
}
# The CPUs a sandbox may use at once, all its processes together.
SANDBOX_CPUS = 1
CPU_PERIOD_US = 100_000
_numbers = itertools.count()


def sandbox_memory_mb(memory_mb: int) -> int:
    """The memory a sandbox whose worker may map ``memory_mb`` MiB gets, all its processes together."""
    return memory_mb + OVERHEAD_MB


class SandboxBound:
    """The groups one sandbox runs in (one per controller this process can use); its
    processes join them before the submission runs."""

    def __init__(self, groups: dict[str, Path]) -> None:
        self.groups = groups

    @classmethod
    def create(cls, limits: Limits) -> SandboxBound | None:
        """New groups for a sandbox bounded as ``limits`` say, or None where this process
        can make none."""
        name = f"{PREFIX}{os.getpid()}-{next(_numbers)}"
        groups = {}
        for controller, root in roots().items():
            _remove_stale(root)
            folder = root / name
            try:
                folder.mkdir()
            except OSError:
                continue
            groups[controller] = folder
        bound = cls(groups) if groups else None
        if bound is not None:
            try:
                bound.set_limits(limits)
            except OSError:
                bound.close()
                return None
        return bound

    def set_limits(self, limits: Limits) -> None:
        """Bound the sandbox's processes, and its memory for a worker that may map
        ``limits.memory_mb`` MiB (swap included, where cgroup v1 counts it apart)."""
        self._limit("pids", str(limits.max_processes))
        value = str(sandbox_memory_mb(limits.memory_mb) * 1024 * 1024)
        self._limit("memory", value)
        memory = self.groups.get("memory")
        if memory is not None and (memory / "memory.memsw.limit_in_bytes").exists():
            (memory / "memory.memsw.limit_in_bytes").write_text(f"{value}\n")
        cpu = self.groups.get("cpu")
        if cpu is not None:
            quota = SANDBOX_CPUS * CPU_PERIOD_US
            if (cpu / "cpu.cfs_quota_us").exists():
                (cpu / "cpu.cfs_period_us").write_text(f"{CPU_PERIOD_US}\n")
                (cpu / "cpu.cfs_quota_us").write_text(f"{quota}\n")
            else:
                (cpu / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}\n")

    def join(self) -> None:
        """Move the calling process into the groups: from Popen's ``preexec_fn``, so the
        child is bounded from before it execs (and before it drops root, which it needs
        to write ``cgroup.procs``)."""
        self.add(os.getpid())

    def add(self, pid: int) -> None:
        """Move process ``pid`` into the groups (its later children are in them too)."""
        for folder in self.groups.values():
            with open(folder / "cgroup.procs", "w") as procs:
                procs.write(str(pid))

    def processes(self) -> int | None:
        """How many processes and threads the sandbox holds now (None: not counted)."""
        folder = self.groups.get("pids")
        return int((folder / "pids.current").read_text()) if folder else None

    def memory_kills(self) -> int:
        """How many of the sandbox's processes the kernel has killed for its memory bound."""
        folder = self.groups.get("memory")
        if folder is None:
            return 0
        for name in ("memory.oom_control", "memory.events"):
            try:
                for line in (folder / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
            except (OSError, ValueError):
                continue
        return 0

    def close(self) -> None:
        """Kill whatever is still in the groups (a daemon that left its session included),
        then remove them."""
        for folder in self.groups.values():
            try:
                pids = (folder / "cgroup.procs").read_text().split()
            except OSError:
                pids = []
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, PermissionError, ValueError):
                    pass
        for folder in self.groups.values():
            _remove(folder)

    def _limit(self, controller: str, value: str) -> None:
        folder = self.groups.get(controller)
        if folder is not None:
            v1, v2 = LIMIT_FILES[controller]
            (folder / (v1 if (folder / v1).exists() else v2)).write_text(f"{value}\n")


@cache
def roots() -> dict[str, Path]:
    """For each of ``pids`` and ``memory``, the folder where this process may make groups."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    found: dict[str, Path] = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in LIMIT_FILES:
            if controller in controllers.split(","):
                candidate = CGROUPS / controller / path.lstrip("/")
            elif controllers == "" and controller in _delegated(CGROUPS / path.lstrip("/")):
                candidate = CGROUPS / path.lstrip("/")
            else:
                continue
            if (candidate / "cgroup.procs").exists() and os.access(candidate, os.W_OK):
                found.setdefault(controller, candidate)
    return found


def enforced(limits: Limits) -> dict[str, Any]:
    """The bounds each sandbox gets on this machine, as a report says them::

        {"processes": 32, "processes_by": ["cgroup v1", "RLIMIT_NPROC"],
         "memory_mb": 1280, "memory_by": ["cgroup v1"], "uid": 65534}

    ``processes`` and ``memory_mb`` are None where nothing holds them, and so is ``cpus``
    (the CPUs its processes may use together: then they share the machine as any
    process does); ``uid`` is the real uid of the sandbox's processes outside every user
    namespace (0: root)."""
    available = roots()
    uid = sandbox_uid(limits.isolation)
    processes_by = [_version(available["pids"])] if "pids" in available else []
    if limits.isolation == "bubblewrap" and uid != 0:
        processes_by.append("RLIMIT_NPROC")
    memory_by = [_version(available["memory"])] if "memory" in available else []
    cpus_by = [_version(available["cpu"])] if "cpu" in available else []
    return {
        "processes": limits.max_processes if processes_by else None,
        "processes_by": processes_by,
        "memory_mb": sandbox_memory_mb(limits.memory_mb) if memory_by else None,
        "memory_by": memory_by,
        "cpus": SANDBOX_CPUS if cpus_by else None,
        "cpus_by": cpus_by,
        "uid": uid,
    }


def shortfalls(bounds: dict[str, Any]) -> str | None:
    """What :func:`enforced` found missing, in one sentence for the command (None: nothing)."""
    missing = [
        name for name, key in (("processes", "processes"), ("memory", "memory_mb"), ("CPU time", "cpus"))
        if bounds.get(key, 0) is None
    ]
    parts = []
    if missing:
        parts.append(
            f"no kernel bound on a sandbox's {' or '.join(missing)} here (the grader can make no cgroup for "
            f"{'them' if len(missing) > 1 else 'it'}): a submission's children are held only by per-process "
            "limits, time budgets and the host's limits, and may slow the other jobs; run as root, or with the "
            "controller delegated, for one"
        )
    if bounds["uid"] == 0:
        parts.append(
            "the sandbox is root outside its user namespace, because uid 65534 cannot run this Python "
            "(as when it lives under /root); grade with a Python every user can read to start it as 65534"
        )
    return "; and ".join(parts) or None


def _version(root: Path) -> str:
    return "cgroup v2" if (root / "cgroup.controllers").exists() else "cgroup v1"


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
