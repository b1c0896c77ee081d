"""`grader check FILE --watch`: notice each time a file is saved again."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.3


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What changes when a file is saved: its inode (editors that write a new file and
    rename it), size and time; None while it is missing (between those two steps)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def saved_again(path: Path, poll_s: float = POLL_S) -> Iterator[None]:
    """Yield each time ``path`` is saved again, once it holds still (an editor may write it
    in several steps), forever: the caller stops on Ctrl-C."""
    last = _stamp(path)
    while True:
        time.sleep(poll_s)
        now = _stamp(path)
        if now is None or now == last:
            continue
        while (settled := _stamp(path)) != now or settled is None:
            now = settled
            time.sleep(poll_s)
        last = now
        yield
