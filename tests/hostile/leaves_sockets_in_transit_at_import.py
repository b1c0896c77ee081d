"""At import, leaves what a colluding classmate graded next in the same sandbox could find:
an abstract Unix listener, a UDP socket and a TCP listener on 127.0.0.1, all passed over a
socket pair that is itself in transit (so no process holds them, and killing every process
does not close them: only the kernel's collector of Unix sockets would). Which ports and
names listen is a channel to the next submission. The head itself is the lesson's, so it
keeps full marks; tests/submissions/checks_its_sandbox_is_clean.py, graded after it, finds
no socket."""
# must-fail:
# must-pass: *
# report-status: graded

import socket

import numpy as np

if __name__ == "attention":
    kept = []
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(b"\0left-for-the-next-worker")
        listener.listen(1)
        kept.append(listener)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 47001))
        kept.append(udp)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 47002))
        tcp.listen(1)
        kept.append(tcp)
    except OSError:
        pass  # no loopback in this sandbox: the rest still goes in transit
    first, second = socket.socketpair()
    # Each end in flight inside the other: a cycle only the kernel's collector breaks.
    socket.send_fds(first, [b"x"], [s.fileno() for s in kept] + [first.fileno(), second.fileno()])
    socket.send_fds(second, [b"y"], [first.fileno(), second.fileno()])
    for held in [*kept, first, second]:
        held.detach()  # never closed by this process: only the fds in transit remain, once it exits

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
