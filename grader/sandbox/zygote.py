"""The sandboxed fork server: numpy is imported once, and each worker is forked from here.

Run under bubblewrap (``--as-pid-1``) as a script, never imported by the grader::

    python -S zygote.py

Starting Python and importing numpy is most of what a fresh worker costs (about 60 ms
of CPU); a forked worker starts in about a millisecond. The trusted side
(:class:`grader.sandbox.workers.Zygote`) talks to it over a Unix socket on its stdin. Each
request is one byte, carrying the file descriptors it hands over, then a :mod:`wire`
frame; each reply is a frame::

    spawn   + the worker's request and reply pipes
            {"op": "spawn", "limits": {...}}     ->  {"pid": n}
    status  {"op": "status", "pid": n, "wait_s": s} ->  {"code": exit code, -signal, or None}
    clear   {"op": "clear"}                      ->  {"cleared": true}

A forked worker reads the submission's bytes from its own request pipe, writes them to
the sandbox's ``/tmp/attention.py`` and imports that file: the zygote never holds a
submission, so no worker can find an earlier one in the memory it inherits.

Workers have the zygote's uid, so these rules keep submissions apart:

- before every spawn, and on clear, it kills every other process in the sandbox
  (``kill(-1)`` from the init of the sandbox's PID namespace reaches all of them), then
  empties ``/tmp`` and ``/dev/shm`` (the only places a worker can write: the sandbox's
  root and every other mount are read-only), puts those folders back as they were made
  (their mode and times, and no extended attribute: a default access list left on
  ``/tmp`` would make every file a later worker creates there unreadable to it), removes
  every System V IPC object and
  empties the keyrings workers share, so nothing one submission started or left meets
  the next (a worker may create no POSIX message queue: its RLIMIT_MSGQUEUE is 0, and
  each has a session keyring of its own);
- every module a worker needs is imported here, before any submission runs;
- it is the namespace's init and not dumpable: no worker can stop, kill or ptrace it,
  or read or write its memory;
- what a worker can still change in it (rlimits, nice value, I/O priority, scheduling,
  CPU affinity, through prlimit(2), ioprio_set(2) and friends) is checked before every
  fork: a zygote that finds itself changed exits, and the trusted side starts a new
  sandbox;
- no socket may outlive its worker: one passed over a socket pair that is itself in
  transit is held by no process, so killing them all does not close it, and a listener
  left so answers the next worker's probes (which ports listen: a channel between
  classmates). After the kill the zygote finds none listed in the sandbox's network
  namespace, or exits, and the new sandbox has a new namespace;
- it refuses to run as anything but the init of its own PID namespace, where
  ``kill(-1)`` would reach every process of the user.
"""

import ctypes
import os
import re
import resource
import shutil
import signal
import socket
import sys
import time

import numpy  # noqa: F401  (imported once, for every worker forked from here)

# What a worker imports for the first time otherwise (numpy.random to seed it, and its
# hashlib, random, secrets; the linear algebra heads use): imported here, before any
# submission runs, so no worker reads a module from disk, and each starts sooner. (One
# that cannot be imported here cannot be in a worker either: the worker says so.)
try:
    import numpy.linalg  # noqa: F401
    import numpy.random  # noqa: F401
except ImportError:
    pass

import wire  # the copies beside this script in the sandbox folder
import worker

SUBMISSION_PATH = "/tmp/attention.py"
SCRATCH_FOLDERS = ("/tmp", "/dev/shm")
CLEAR_SECONDS = 2.0
PR_SET_DUMPABLE = 4
PR_GET_TIMERSLACK = 30
IPC_RMID = 0
# /proc/sysvipc/<kind> lists the ids in its second column; each kind has its own remover.
IPC_KINDS = ("shm", "msg", "sem")

# keyctl(2) has no libc wrapper: the syscall by its number, where it is known. The user
# keyrings a sandbox sees are its user namespace's own from Linux 5.3 on; before, they
# could be the host user's, which the zygote then leaves alone.
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
KEYRINGS_OF_THE_NAMESPACE = tuple(int(part) for part in re.findall(r"\d+", os.uname().release)[:2]) >= (5, 3)
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
SYS_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)
IOPRIO_WHO_PROCESS = 1
# The sandbox's network namespace's sockets, by kind: a socket no process holds any more
# (one in transit in a socket pair that is itself in transit) is still listed, and still
# answers a later worker that probes which ports listen.
SOCKET_TABLES = ("tcp", "tcp6", "udp", "udp6", "raw", "raw6", "unix", "packet", "netlink")
SOCKETS_SECONDS = 0.5
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5

_libc = ctypes.CDLL(None, use_errno=True)
_exits: dict[int, int] = {}
# Each scratch folder's mode and (atime, mtime) as the sandbox made it, and what
# _folders() found then: recorded when the zygote starts, before any worker runs.
FIRST_MODES_AND_TIMES: dict[str, tuple[int, tuple[int, int]]] = {}
PRISTINE_FOLDERS: tuple = ()


def _state() -> tuple:
    """What a process of the same uid can change in this one and every worker inherits
    (or that decides which process the kernel kills for memory)."""
    limits = tuple(resource.getrlimit(getattr(resource, name)) for name in sorted(dir(resource)) if name.startswith("RLIMIT_"))
    policy = os.sched_getscheduler(0)
    with open("/proc/self/oom_score_adj") as score:
        oom_score = score.read()
    io_priority = _libc.syscall(SYS_IOPRIO_GET, IOPRIO_WHO_PROCESS, 0) if SYS_IOPRIO_GET is not None else None
    return (
        limits, os.getpriority(os.PRIO_PROCESS, 0), policy, os.sched_getparam(0), os.sched_getaffinity(0),
        oom_score, _libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), io_priority,
    )


def _reap() -> None:
    """Collect every finished child (orphans included: this is init), keeping exit codes for ``status``."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _exits[pid] = os.waitstatus_to_exitcode(status)


def _others() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != 1]


def _empty(folder: str) -> None:
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=_unlock_and_retry)
        else:
            os.unlink(path)


def _unlock_and_retry(function, path: str, _error) -> None:
    """A worker may have made a folder unreadable; this uid owns it, so it can open it again."""
    os.chmod(os.path.dirname(path), 0o700)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=_unlock_and_retry)
    else:
        function(path)


def _remove_ipc_objects() -> None:
    removers = {"shm": lambda id_: _libc.shmctl(id_, IPC_RMID, None),
                "msg": lambda id_: _libc.msgctl(id_, IPC_RMID, None),
                "sem": lambda id_: _libc.semctl(id_, 0, IPC_RMID)}
    for kind in IPC_KINDS:
        try:
            with open(f"/proc/sysvipc/{kind}") as listing:
                rows = listing.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            removers[kind](int(row.split()[1]))


def _keyctl(*args: int | None) -> None:
    if SYS_KEYCTL is not None:
        _libc.syscall(SYS_KEYCTL, *args)


def _clear_keys() -> None:
    """Empty the keyrings every worker of the sandbox can reach: the user's two (shared by
    the uid) and the zygote's session keyring (each worker joins one of its own)."""
    _keyctl(KEYCTL_CLEAR, KEY_SPEC_SESSION_KEYRING)
    if KEYRINGS_OF_THE_NAMESPACE:
        _keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING)
        _keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING)


def _clear() -> None:
    """Kill every other process and remove what workers left; exit (the trusted side
    starts a new sandbox) if anything survives."""
    deadline = time.monotonic() + CLEAR_SECONDS
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nothing left to signal
        _reap()
        if not _others():
            break
        if time.monotonic() > deadline:
            sys.exit("processes survived SIGKILL")
        time.sleep(0.001)
    for folder in SCRATCH_FOLDERS:
        _empty(folder)
        _as_made(folder)
    _remove_ipc_objects()
    _clear_keys()
    if any(os.listdir(folder) for folder in SCRATCH_FOLDERS):
        sys.exit("files survived the clean-up")
    if _folders() != PRISTINE_FOLDERS:
        sys.exit("a scratch folder's mode, attributes or access lists survived the clean-up")
    if not _no_sockets_left():
        sys.exit("sockets survived their processes")


def _folders() -> tuple:
    """What a worker can change on the scratch folders themselves and the next would meet:
    their mode, their extended attributes (a default access list among them, which would
    make every file a later worker creates there unreadable to it) and their times."""
    found = []
    for folder in SCRATCH_FOLDERS:
        status = os.stat(folder)
        found.append((folder, status.st_mode, tuple(sorted(os.listxattr(folder))), status.st_mtime_ns))
    return tuple(found)


def _as_made(folder: str) -> None:
    """``folder`` as the sandbox made it: no extended attribute or access list, its first
    mode, and its first times (so they carry nothing from one worker to the next)."""
    for name in os.listxattr(folder):
        try:
            os.removexattr(folder, name)
        except OSError:
            pass  # one that cannot be removed is found by the check after the clean-up
    mode, times = FIRST_MODES_AND_TIMES[folder]
    os.chmod(folder, mode)
    os.utime(folder, ns=times)


def _sockets() -> int:
    """How many sockets the sandbox's network namespace holds (the zygote holds none of its
    own there: its control socket was made outside)."""
    count = 0
    for kind in SOCKET_TABLES:
        try:
            with open(f"/proc/net/{kind}") as table:
                rows = [row.split() for row in table.read().splitlines()[1:]]
        except OSError:
            continue
        # Every namespace has the kernel's own netlink sockets (port id 0), no worker's.
        count += sum(1 for row in rows if kind != "netlink" or len(row) > 2 and row[2] != "0")
    return count


def _no_sockets_left() -> bool:
    """Whether every socket a worker made is gone, once the kernel has collected those that
    were only in transit (closing a Unix socket while any is in transit starts its
    collector); if not, the zygote exits and the trusted side starts a fresh sandbox, whose
    new network namespace no leftover can reach."""
    if not _sockets():
        return True
    deadline = time.monotonic() + SOCKETS_SECONDS
    while time.monotonic() < deadline:
        first, second = socket.socketpair()
        first.close()
        second.close()
        time.sleep(0.01)
        if not _sockets():
            return True
    return False


def _become_worker(limits: dict, requests: int, replies: int) -> None:
    """In the forked child: shed everything of the zygote's, then serve the submission."""
    try:
        os.setsid()
        _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)  # a session keyring of its own, gone with it
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the zygote ignores it
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd > 2 and fd not in (requests, replies):
                try:
                    os.close(fd)  # the control socket above all
                except OSError:
                    pass
        worker._die_with_parent()
        header, arrays = wire.read_frame(requests)
        functions, module = header.get("functions"), header.get("module")
        if header.get("op") != "source" or len(arrays) != 1 or not isinstance(functions, list) or not isinstance(module, str):
            return
        with open(SUBMISSION_PATH, "wb") as stream:
            stream.write(arrays[0].tobytes())
        os.chmod(SUBMISSION_PATH, 0o444)
        del header, arrays
        worker._apply_limits(limits)
        worker.serve(
            requests, replies, SUBMISSION_PATH, lambda: worker._import_submission(SUBMISSION_PATH, module), tuple(functions)
        )
    finally:
        os._exit(0)  # never back into the zygote's loop


def _status(pid: int, wait_s: float) -> int | None:
    deadline = time.monotonic() + wait_s
    _reap()
    while pid not in _exits and time.monotonic() < deadline:
        time.sleep(0.002)
        _reap()
    return _exits.get(pid)


def main() -> None:
    if os.getpid() != 1:
        sys.exit("the zygote runs only as the init of its own bubblewrap sandbox (--as-pid-1)")
    _libc.prctl(PR_SET_DUMPABLE, 0)
    _keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)  # not the one bubblewrap was started in
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Python's handler would let a worker stop it
    worker._die_with_parent()
    control = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    pristine = _state()
    global PRISTINE_FOLDERS
    for folder in SCRATCH_FOLDERS:
        status = os.stat(folder)
        FIRST_MODES_AND_TIMES[folder] = (status.st_mode & 0o7777, (status.st_atime_ns, status.st_mtime_ns))
    PRISTINE_FOLDERS = _folders()
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(control, 1, 2)
            request, _ = wire.read_frame(control.fileno())
        except (OSError, wire.WireError):
            return  # the trusted side is gone
        op = request.get("op")
        if op == "spawn" and len(fds) == 2:
            _clear()
            if _state() != pristine:
                sys.exit("a worker changed the zygote's limits or scheduling")
            _exits.clear()
            pid = os.fork()
            if pid == 0:
                _become_worker(request.get("limits", {}), *fds)
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
