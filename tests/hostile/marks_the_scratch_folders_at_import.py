"""At import, marks the sandbox's scratch folders for whoever is graded next: a default
access list on /tmp and /dev/shm that gives every file created there later no permission
at all (a later head that saves and loads a temporary file cannot read it back), a user
extended attribute carrying a message, and a chosen modification time. The head itself is
the lesson's, so it keeps full marks; tests/submissions/checks_its_sandbox_is_clean.py,
graded after it, finds the folders as a fresh sandbox has them."""
# must-fail:
# must-pass: *
# report-status: graded

import os
import struct

import numpy as np

ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_OTHER = 0x01, 0x04, 0x20
NO_PERMISSION = struct.pack("<I", 2) + b"".join(
    struct.pack("<HHI", tag, 0, 0xFFFFFFFF) for tag in (ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_OTHER)
)

if __name__ == "attention":
    for folder in ("/tmp", "/dev/shm"):
        for name, value in (("system.posix_acl_default", NO_PERMISSION), ("user.left", b"for the next worker")):
            try:
                os.setxattr(folder, name, value)
            except OSError:
                pass
        try:
            os.utime(folder, (1234567890, 1234567890))
        except OSError:
            pass

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
