"""softmax writes a scratch file until the disk is full and lets the error out: its report
must say that the sandbox's space ran out, and how much there is."""
# must-fail: softmax.*
# must-pass: causal_mask.values
# report-status: graded

import numpy as np

_CHUNK = b"\0" * (1024 * 1024)


def softmax(x, axis=-1):
    number = 0
    while number < 64:  # at most 256 MiB: the sandbox must stop it long before
        with open(f"/tmp/scratch-{number}.bin", "wb") as stream:
            for _ in range(4):
                stream.write(_CHUNK)
        number += 1
    raise AssertionError("wrote 256 MiB: nothing bounds the sandbox's space")


def attention(Q, K, V, mask=None):
    return softmax(Q @ K.T) @ V, softmax(Q @ K.T)


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
