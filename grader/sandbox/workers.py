"""Starting a worker: a plain process, or forked inside bubblewrap by this process's zygote.

:func:`start_worker` is the one way in. Every worker has a request pipe and a reply pipe
(``requests``, ``replies``, read through ``reader``), says whether it has ended
(``ended``) and how (``exit_description``), and can be killed (``kill``), whichever way it
was started:

- ``process`` isolation: :class:`WorkerProcess`, ``python worker.py`` in a fresh folder
  holding a copy of the submission, in its own session, dropped to uid 65534 where that
  works (see grader.sandbox);
- ``bubblewrap`` isolation: :class:`ForkedWorker`, forked by :mod:`grader.sandbox.zygote`, which
  runs in one bubblewrap sandbox per grader process and has imported numpy already: a
  worker then starts in about a millisecond instead of about 60 ms of Python and numpy
  start-up. The zygote kills whatever the previous worker left running before it forks
  the next one (see grader.sandbox.zygote for what keeps submissions apart); a zygote that
  stops answering is killed with its sandbox and replaced.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grader.sandbox import wire
from grader.sandbox.bounds import SandboxBound, sandbox_memory_mb
from grader.sandbox import (
    SANDBOX_FOLDER,
    Limits,
    bubblewrap_command,
    drop_to_nobody,
    kill_session,
    starts_as_nobody,
    worker_environment,
)

SCRIPTS = ("worker.py", "wire.py", "zygote.py")
# How long the zygote may take to answer: a spawn takes about a millisecond, but the very
# first one waits for the zygote's own start (Python and numpy).
SPAWN_TIMEOUT_S = 20.0
REQUEST_TIMEOUT_S = 5.0
EXIT_WAIT_S = 1.0


def _folder(submission: bytes | None) -> Path:
    """A fresh folder with the worker scripts under ``.grader/`` (and the submission as
    ``attention.py``), readable, not writable, by the unprivileged uid workers run as."""
    folder = Path(tempfile.mkdtemp(prefix="grader-worker-"))
    scripts = folder / ".grader"
    scripts.mkdir()
    here = Path(__file__).parent
    files = []
    for name in SCRIPTS:
        shutil.copyfile(here / name, scripts / name)
        files.append(scripts / name)
    if submission is not None:
        (folder / "attention.py").write_bytes(submission)
        files.append(folder / "attention.py")
    for path in (folder, scripts):
        path.chmod(0o755)
    for path in files:
        path.chmod(0o644)
    return folder


def describe_exit(code: int | None) -> str:
    """How a worker ended, for a student: its exit status or the signal that killed it."""
    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            return f"it was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"it was killed by signal {-code}"
    return f"it exited with status {code}"


class WorkerProcess:
    """A worker in a plain process of its own: its pipes, its process and its folder."""

    def __init__(self, submission: bytes, limits: Limits, interface: Interface) -> None:
        self.folder = _folder(submission)
        scripts = self.folder / ".grader"
        command = [sys.executable, "-s", str(scripts / "worker.py"), str(self.folder / "attention.py")]
        self.memory_mb = limits.memory_mb
        self.bound = SandboxBound.create(limits)
        self.process = subprocess.Popen(
            [*command, json.dumps(limits.rlimits()), json.dumps(list(interface.functions)), interface.module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            env=worker_environment(str(self.folder)),
            start_new_session=True,
            preexec_fn=_entering(self.bound, limits.isolation),
        )
        self.requests = self.process.stdin.fileno()
        self.replies = self.process.stdout.fileno()
        self.reader = wire.FrameReader(self.replies)

    def ended(self) -> bool:
        """Whether the worker process has ended (its children may still hold its pipes)."""
        return self.process.poll() is not None

    def exit_description(self) -> str:
        try:
            code = self.process.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            code = None
        return _memory_kill(self.bound, 0, self.memory_mb) or describe_exit(code)

    def kill(self) -> None:
        """Kill the worker's whole session (and its process group's every process) and
        remove its folder."""
        kill_session(self.process)
        if self.bound is not None:
            self.bound.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _entering(bound: SandboxBound | None, isolation: str) -> Callable[[], None]:
    """Popen's ``preexec_fn`` for a sandbox's first process: join its groups while still
    root (only root may), then drop to uid/gid 65534 where this grader does (Popen's own
    ``user=`` would drop first), so the sandbox is bounded from before it execs."""
    drop = starts_as_nobody(isolation)

    def enter() -> None:
        if bound is not None:
            bound.join()
        if drop:
            drop_to_nobody()

    return enter


def _memory_kill(bound: SandboxBound | None, before: int, memory_mb: int) -> str | None:
    """Why a worker died, when the kernel killed a process of its sandbox for memory since ``before``."""
    if bound is None or bound.memory_kills() <= before:
        return None
    return (
        f"it was killed for holding more than the sandbox's {sandbox_memory_mb(memory_mb)} MiB of memory "
        "(all its processes together)"
    )


class ZygoteFailed(OSError):
    """The zygote did not answer as it should; it has been killed and will be replaced."""


class Zygote:
    """The trusted side of :mod:`grader.sandbox.zygote`: one bubblewrap sandbox that forks workers.

    Requests are answered in order, one at a time; any request that fails kills the
    zygote with its sandbox (and every worker in it), and the next spawn starts a new one.
    ``generation`` counts the sandboxes started, so a worker knows whether its own is gone.
    """

    def __init__(self) -> None:
        self.folder = _folder(None)
        self.generation = 0
        self._control: socket.socket | None = None
        self._process: subprocess.Popen | None = None
        # Every sandbox this zygote starts runs in these groups; each spawn sets their limits.
        self.bound = SandboxBound.create(Limits(isolation="bubblewrap"))
        atexit.register(self.close)

    def start(self) -> None:
        """Start the sandbox now, unless it runs (it imports numpy while the caller goes on)."""
        if self._control is not None:
            return
        control, remote = socket.socketpair()
        environment = worker_environment(SANDBOX_FOLDER)
        command = bubblewrap_command(self.folder, environment, [f"{SANDBOX_FOLDER}/.grader/zygote.py"], as_pid_1=True)
        try:
            with remote:
                self._process = subprocess.Popen(
                    command,
                    stdin=remote,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    cwd=self.folder,
                    env=environment,
                    start_new_session=True,
                    preexec_fn=_entering(self.bound, "bubblewrap"),
                )
        except (OSError, subprocess.SubprocessError) as error:
            control.close()
            raise ZygoteFailed(f"the sandbox's zygote did not start: {error}") from None
        self._control = control
        self.generation += 1

    def request(self, fields: dict[str, Any], fds: list[int] = (), timeout: float = REQUEST_TIMEOUT_S) -> dict[str, Any]:
        """Send one request (handing over ``fds``) and return the zygote's reply."""
        self.start()
        deadline = time.monotonic() + timeout
        try:
            socket.send_fds(self._control, [b"r"], list(fds))
            wire.write_all(self._control.fileno(), wire.encode(fields, []), deadline)
            reply, _ = wire.read_frame(self._control.fileno(), deadline)
        except (OSError, wire.WireError) as error:
            self.stop()
            raise ZygoteFailed(f"the sandbox's zygote failed: {error}") from None
        if "error" in reply:
            self.stop()
            raise ZygoteFailed(f"the sandbox's zygote refused a request: {reply['error']}")
        return reply

    def spawn(self, submission: bytes, limits: Limits, interface: Interface) -> ForkedWorker:
        """A new worker for ``submission`` that answers as ``interface`` says, forked after
        everything the previous one left is gone. A zygote that fails is replaced once
        before the failure is raised."""
        if self.bound is not None:
            self.bound.set_limits(limits)
        kills = self.bound.memory_kills() if self.bound is not None else 0
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        try:
            try:
                reply = self._spawn_request(limits, [requests_read, replies_write])
            finally:
                os.close(requests_read)
                os.close(replies_write)
            worker = ForkedWorker(self, int(reply["pid"]), requests_write, replies_read, kills, limits.memory_mb)
        except BaseException:
            os.close(requests_write)
            os.close(replies_read)
            raise
        # The worker reads its source from its own pipe: the zygote never holds it. A
        # worker that does not take it fails as a worker (its ready message never comes).
        source = np.frombuffer(submission, dtype=np.uint8)
        try:
            wire.write_all(requests_write, wire.encode({"op": "source", "functions": list(interface.functions), "module": interface.module}, [source]), time.monotonic() + REQUEST_TIMEOUT_S)
        except (OSError, wire.WireError):
            pass
        return worker

    def _spawn_request(self, limits: Limits, fds: list[int]) -> dict[str, Any]:
        try:
            return self.request({"op": "spawn", "limits": limits.rlimits()}, fds, SPAWN_TIMEOUT_S)
        except ZygoteFailed:
            return self.request({"op": "spawn", "limits": limits.rlimits()}, fds, SPAWN_TIMEOUT_S)

    def stop(self) -> None:
        """Kill the zygote's sandbox and every worker in it."""
        if self._process is not None:
            kill_session(self._process)
            self._process = None
        if self._control is not None:
            self._control.close()
            self._control = None

    def close(self) -> None:
        self.stop()
        if self.bound is not None:
            self.bound.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class ForkedWorker:
    """A worker the zygote forked: its pipes, and its pid inside the sandbox."""

    def __init__(
        self, zygote: Zygote, pid: int, requests: int, replies: int, memory_kills: int, memory_mb: int
    ) -> None:
        self._zygote = zygote
        self._memory_kills = memory_kills  # the sandbox's count when this worker started
        self._memory_mb = memory_mb
        self._generation = zygote.generation
        self.pid = pid
        self.requests = requests
        self.replies = replies
        self.reader = wire.FrameReader(replies)

    def _zygote_request(self, fields: dict[str, Any]) -> dict[str, Any] | None:
        """The reply of this worker's own zygote; None if that sandbox is gone (with the worker)."""
        if self._zygote.generation != self._generation or self._zygote._control is None:
            return None
        try:
            return self._zygote.request(fields)
        except ZygoteFailed:
            return None

    def ended(self) -> bool:
        """Whether the worker process has ended (its children may still hold its pipes)."""
        reply = self._zygote_request({"op": "status", "pid": self.pid, "wait_s": 0})
        return reply is None or reply.get("code") is not None

    def exit_description(self) -> str:
        reply = self._zygote_request({"op": "status", "pid": self.pid, "wait_s": EXIT_WAIT_S}) or {}
        code = reply.get("code")
        killed = _memory_kill(self._zygote.bound, self._memory_kills, self._memory_mb)
        return killed or describe_exit(code if type(code) is int else None)

    def kill(self) -> None:
        """Close the pipes and have the zygote kill the worker and whatever it started."""
        if self.requests < 0:
            return  # killed already: the descriptor numbers may belong to others by now
        for fd in (self.requests, self.replies):
            os.close(fd)
        self.requests = self.replies = -1
        self._zygote_request({"op": "clear"})


Worker = WorkerProcess | ForkedWorker
_zygote: Zygote | None = None


def zygote() -> Zygote:
    """This process's zygote, started on first use."""
    global _zygote
    if _zygote is None:
        _zygote = Zygote()
    _zygote.start()
    return _zygote


def close_zygote() -> None:
    """Stop this process's zygote, if it has one, and remove its folder (as at exit)."""
    if _zygote is not None:
        _zygote.close()


@dataclass(frozen=True)
class Interface:
    """What a worker is told of the assignment: the module name it imports the submission
    as (the handout's), and the functions it answers calls to."""

    module: str
    functions: tuple[str, ...]


def start_worker(submission: bytes, limits: Limits, interface: Interface) -> Worker:
    """Start a worker for the source ``submission``, answering as ``interface`` says, as
    ``limits.isolation`` says."""
    if limits.isolation != "bubblewrap":
        return WorkerProcess(submission, limits, interface)
    return zygote().spawn(submission, limits, interface)
