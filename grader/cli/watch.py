"""`grader check FILE --watch`: notice each time a file is saved again."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.3


Stamp = tuple[int, int, int] | None


def stamp(path: Path) -> Stamp:
    """What changes when a file is saved: its inode (editors that write a new file and
    rename it), size and time; None while it is missing (between those two steps)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def saved_again(path: Path, since: Stamp, poll_s: float = POLL_S) -> Iterator[None]:
    """Yield each time ``path`` is saved again after it was as ``since`` says, once it holds
    still (an editor may write it in several steps), forever: the caller stops on Ctrl-C."""
    last = since
    while True:
        time.sleep(poll_s)
        now = stamp(path)
        if now is None or now == last:
            continue
        while True:  # until two looks a poll apart agree
            time.sleep(poll_s)
            settled = stamp(path)
            if settled == now and settled is not None:
                break
            now = settled
        last = now
        yield
