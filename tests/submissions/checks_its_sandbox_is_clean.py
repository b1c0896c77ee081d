"""The lesson's head, which refuses to import unless its bubblewrap sandbox is as a fresh
worker finds it: nothing in /tmp but its own file, nothing in /dev/shm, no System V
shared memory, no key a worker left in a keyring, no socket (listening or in transit) in
its network namespace, its nice value 0, its I/O priority not idle, every CPU, and the
grader's default limits."""

import ctypes
import os
import resource

import numpy as np

assert os.listdir("/tmp") == ["attention.py"], os.listdir("/tmp")
assert os.listdir("/dev/shm") == [], os.listdir("/dev/shm")
with open("/proc/sysvipc/shm") as _segments:
    assert len(_segments.read().splitlines()) == 1, "a shared memory segment was left behind"
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
if _SYS_KEYCTL is not None:
    _keyctl = ctypes.CDLL(None, use_errno=True).syscall
    for _keyring in (-3, -4, -5):  # session, user, user session
        _found = _keyctl(_SYS_KEYCTL, 10, _keyring, b"user", b"left-for-the-next-worker", 0)  # KEYCTL_SEARCH
        assert _found == -1, f"a key left by an earlier worker is in keyring {_keyring}"
for _folder in ("/tmp", "/dev/shm"):
    assert os.listxattr(_folder) == [], f"{_folder} carries attributes an earlier worker left: {os.listxattr(_folder)}"
    assert os.stat(_folder).st_mtime > 1234567890, f"{_folder} carries the time an earlier worker set"
with open("/tmp/written_here.npy", "wb") as _stream:
    np.save(_stream, np.ones(3))
assert np.load("/tmp/written_here.npy").sum() == 3  # what a worker writes it can read back
os.unlink("/tmp/written_here.npy")
assert os.getpriority(os.PRIO_PROCESS, 0) == 0
_SYS_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)
if _SYS_IOPRIO_GET is not None:
    _ioprio = ctypes.CDLL(None, use_errno=True).syscall(_SYS_IOPRIO_GET, 1, 0)  # IOPRIO_WHO_PROCESS, itself
    assert _ioprio >> 13 != 3, f"an idle I/O priority was left for this worker ({_ioprio})"
# No socket outlives the worker that made it: none listed in the sandbox's network namespace.
for _kind in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6", "unix", "packet"):
    try:
        with open(f"/proc/net/{_kind}") as _table:
            _rows = _table.read().splitlines()[1:]
    except OSError:
        continue
    assert _rows == [], f"sockets left in /proc/net/{_kind}: {_rows[:3]}"
assert os.sched_getaffinity(0) == set(range(os.cpu_count())), os.sched_getaffinity(0)
assert resource.getrlimit(resource.RLIMIT_AS)[0] == 1024 * 1024 * 1024
assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 64
_room = np.ones(32 * 1024 * 1024 // 8)  # 32 MiB: far below the grader's 1 GiB
del _room


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
