"""The ways a batch is executed: on this machine's cores (:mod:`.local`), or on a Dask
cluster (:mod:`.cluster`, with the ``dask`` extra).

An executor takes the submission files a batch still has to grade
(grader.sources.files.SubmissionFile), with the rubric and limits, and yields each one's
report as it is done, in no fixed order. It writes nothing: grader.batch, the only
writer, writes each report as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from grader.assignments.rubric import Rubric
from grader.report import Report
from grader.sandbox import Limits
from grader.sources.files import SubmissionFile

Executor = Callable[[list[SubmissionFile], Rubric, Limits], Iterator[Report]]

# Submissions graded in one check run at most. Measured on the benchmark's 40 (2 jobs):
# 1 per run 4.8-5.0 s with no traces, 4 per run 4.5-4.6 s, 8 per run 4.1-4.2 s, 16 no
# faster than 8.
CHUNK_SIZE = 8


def chunk_size(waiting: int, parallel: int) -> int:
    """How many of ``waiting`` submissions the next check run takes, with ``parallel``
    runs at once: up to CHUNK_SIZE, so a pytest session's start-up is paid once for
    several, and fewer as the queue drains, so that no job waits long for another's last."""
    return max(1, min(CHUNK_SIZE, waiting // (2 * parallel)))
