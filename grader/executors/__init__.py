"""The ways a batch is executed: on this machine's cores (:mod:`.local`), or on a Dask
cluster (:mod:`.cluster`, with the ``dask`` extra).

An executor takes the ``(path, student)`` pairs a batch still has to grade, with the
rubric and limits, and yields each one's report as it is done, in no fixed order. It
writes nothing: grader.batch, the only writer, writes each report as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from grader.report import Report
from grader.rubric import Rubric
from grader.sandbox import Limits

Executor = Callable[[list[tuple[Path, str]], Rubric, Limits], Iterator[Report]]
