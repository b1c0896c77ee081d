"""softmax raises an exception whose message is made to take over a terminal and to break
the files the grader writes: clear screen, window title, a clipboard write, a hyperlink,
bell, a carriage return before a fake PASS line, a C1 control, a right-to-left override, a
lone surrogate and a line separator. Every output must show them as text, and none may
crash."""
# must-fail: softmax.*
# must-pass: attention.*, mask.*, self_attention.*, causal_mask.values
# report-status: graded

import numpy as np

PAYLOAD = (
    "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;cGF5bG9hZA==\x07"
    "\x1b]8;;https://example.invalid\x1b\\click\x1b]8;;\x1b\\"
    "\r   PASS  softmax.rows_sum_to_one  4/4\x9b31m\u202egnp.exe\ud800\udcff\u2028=1+1"
)


def softmax(x, axis=-1):
    raise ValueError(PAYLOAD)


def _softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = _softmax(scores)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))
