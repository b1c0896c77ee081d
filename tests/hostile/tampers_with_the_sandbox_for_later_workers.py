"""At import, tries everything a worker could do to the zygote and the sandbox that a later
submission's worker would inherit: stop, kill and ptrace the sandbox's init, lower its
rlimits and CPU share, and leave files in /tmp and /dev/shm and a System V shared memory
segment. The head itself is the lesson's."""
# must-fail:
# must-pass: *
# report-status: graded

import ctypes
import os
import resource
import signal

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, IPC_PRIVATE, IPC_CREAT = 16, 0, 0o1000


def _try(action, *args):
    try:
        action(*args)
    except (OSError, ValueError):
        pass


for signal_number in (signal.SIGSTOP, signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
    _try(os.kill, 1, signal_number)
_libc.ptrace(PTRACE_ATTACH, 1, None, None)
_try(resource.prlimit, 1, resource.RLIMIT_AS, (64 * 1024 * 1024, 64 * 1024 * 1024))
_try(resource.prlimit, 1, resource.RLIMIT_NOFILE, (8, 8))
_try(os.setpriority, os.PRIO_PROCESS, 1, 19)
_try(os.sched_setaffinity, 1, {0})
for folder in ("/tmp", "/dev/shm"):
    _try(lambda path: open(path, "w").write("left for the next worker"), os.path.join(folder, "left_behind"))
_libc.shmget(IPC_PRIVATE, 1024 * 1024, IPC_CREAT | 0o666)


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
