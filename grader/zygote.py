"""The sandboxed fork server: numpy is imported once, and each worker is forked from here.

Run under bubblewrap as a script, never imported by the grader::

    python -S zygote.py

Starting Python and importing numpy is most of what a fresh worker costs (about 60 ms
of CPU); a forked worker starts in about a millisecond. The trusted side
(:class:`grader.sandbox.Zygote`) talks to it over a Unix socket on its stdin. Each
request is one byte, carrying the file descriptors it hands over, then a :mod:`wire`
frame; each reply is a frame::

    spawn   + the worker's request and reply pipes, the submission's bytes as a uint8 array
            {"op": "spawn", "limits": {...}}  ->  {"pid": n}
    status  {"op": "status", "pid": n}        ->  {"code": exit code, -signal, or None}
    clear   {"op": "clear"}                   ->  {"cleared": true}

Workers are the same uid as this process, so the rules that keep submissions apart:

- before every spawn, and on clear, it kills every other process in the sandbox's PID
  namespace (``kill(-1)``: everything it may signal but itself and the namespace's init)
  until none is left, so nothing one submission started meets the next;
- it is not dumpable, so no worker can ptrace it or read or write its memory;
- a worker that kills or stops it only costs a restart: the trusted side then starts a
  new sandbox;
- it refuses to run outside a PID namespace of its own, where ``kill(-1)`` would reach
  every process of the user.
"""

import ctypes
import os
import signal
import socket
import sys
import time

import numpy  # noqa: F401  (imported once, for every worker forked from here)

import wire  # the copies beside this script in the sandbox folder
import worker

SUBMISSION_PATH = "/submission/attention.py"
CLEAR_SECONDS = 2.0
PR_SET_DUMPABLE = 4

_exits: dict[int, int] = {}


def _reap() -> None:
    """Collect every finished child, keeping its exit code (or -signal) for ``status``."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _exits[pid] = os.waitstatus_to_exitcode(status)


def _others() -> list[int]:
    me = os.getpid()
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in (1, me)]


def _clear() -> None:
    """Kill every other process in the sandbox; exit (the trusted side restarts) if some survive."""
    deadline = time.monotonic() + CLEAR_SECONDS
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nothing left to signal
        _reap()
        if not _others():
            return
        if time.monotonic() > deadline:
            sys.exit("processes survived SIGKILL")
        time.sleep(0.001)


def _become_worker(source: bytes, limits: dict, requests: int, replies: int) -> None:
    """In the forked child: shed everything of the zygote's, then serve the submission."""
    try:
        os.setsid()
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd > 2 and fd not in (requests, replies):
                try:
                    os.close(fd)  # the control socket above all
                except OSError:
                    pass
        worker._die_with_parent()
        worker._apply_limits(limits)
        worker.serve(requests, replies, SUBMISSION_PATH, lambda: worker.load_source(source, SUBMISSION_PATH))
    finally:
        os._exit(0)  # never back into the zygote's loop


def _status(pid: int, wait_s: float) -> int | None:
    deadline = time.monotonic() + wait_s
    while pid not in _exits and time.monotonic() < deadline:
        _reap()
        time.sleep(0.002)
    return _exits.get(pid)


def main() -> None:
    if os.getpid() != 2:  # bubblewrap runs its command as PID 2 of a new PID namespace
        sys.exit("the zygote runs only as the command of its own bubblewrap sandbox")
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0)
    worker._die_with_parent()
    control = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(control, 1, 2)
            request, arrays = wire.read_frame(control.fileno())
        except (OSError, wire.WireError):
            return  # the trusted side is gone
        op = request.get("op")
        if op == "spawn" and len(fds) == 2 and len(arrays) == 1:
            _clear()
            _exits.clear()
            pid = os.fork()
            if pid == 0:
                _become_worker(arrays[0].tobytes(), request.get("limits", {}), *fds)
            reply = {"pid": pid}
        elif op == "status":
            reply = {"code": _status(int(request.get("pid", 0)), float(request.get("wait_s", 0.0)))}
        elif op == "clear":
            _clear()
            reply = {"cleared": True}
        else:
            reply = {"error": f"unknown request {op!r}"}
        for fd in fds:
            os.close(fd)
        wire.write_all(control.fileno(), wire.encode(reply, []))


if __name__ == "__main__":
    main()
