"""Who grades each submission of a check run: the run, or another job that took it over.

A check run grades its submissions one after another (grader.engine.runner.CheckProcess.run_many).
So that a slow submission never holds up the ones queued behind it, a job with nothing
left to do takes over submissions another job's run has not started yet. Each run has a
claims folder, and each of its submissions is claimed once, by creating the file named
after its index with ``O_EXCL``: the run (the pytest plugin, in the check process) claims
one just before starting it, the batch (in the grader's process) claims those it hands to
another job. Whoever creates the file grades the submission; the other never does.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def claim(folder: Path, index: int) -> bool:
    """Claim submission ``index`` of the run whose claims are in ``folder``; False if it was claimed already."""
    try:
        os.close(os.open(folder / str(index), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


class Claims:
    """The batch's side of one run's claims: which of its ``count`` submissions other jobs took over."""

    def __init__(self, folder: Path, count: int) -> None:
        self.folder = folder
        self.count = count
        self.taken_over: set[int] = set()
        self._lock = threading.Lock()

    def unstarted(self) -> list[int]:
        """The run's submissions nobody has claimed yet, in order."""
        claimed = set(os.listdir(self.folder))
        return [index for index in range(self.count) if str(index) not in claimed]

    def take_over(self, wanted: int) -> list[int]:
        """Claim up to ``wanted`` of the run's unstarted submissions, from the last one back
        (the run claims from the first on), for another job; return them in order."""
        taken = []
        with self._lock:
            for index in reversed(self.unstarted()):
                if len(taken) == wanted or not claim(self.folder, index):
                    break  # the run got there first: every one before it is the run's too
                taken.append(index)
            self.taken_over.update(taken)
        return sorted(taken)

    def keep(self, index: int) -> bool:
        """Claim ``index`` for the run itself, to grade it again alone after the run broke;
        True unless another job took it over."""
        with self._lock:
            return claim(self.folder, index) or index not in self.taken_over
