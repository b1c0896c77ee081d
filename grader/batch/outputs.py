"""What a batch writes beside each submission's report, ``summary.json`` and ``grades.csv``:
the class outputs an instructor asks for (``--html``, ``--junit``, ``--canvas``,
``--similarity``).

Nothing in OUT is older than the batch that last wrote there: a class output an earlier
batch wrote and this one was not asked for is removed (``summary.json`` lists it under
``removed_outputs``, and the command says so), so a ``canvas.csv`` from before a regrade
can never be uploaded in place of today's.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from grader.assignments.rubric import Rubric
from grader.report import Report, write_atomic
from grader.report.formats.gradebook import canvas_csv
from grader.report.formats.junit import junit_xml
from grader.report.pages import INDEX_PAGE, write_pages
from grader.similarity import DEFAULT_THRESHOLD, of_batch, similarity_json
from grader.sources.files import SubmissionFile

SIMILARITY = "similarity.json"
JUNIT = "junit.xml"
CANVAS = "canvas.csv"


@dataclass(frozen=True)
class ClassOutputs:
    """The class outputs a batch is asked for (all off: reports, summary and gradebook only)."""

    html: bool = False  # OUT/<id>.html per submission and the class page OUT/index.html
    junit: bool = False  # OUT/junit.xml
    canvas: bool = False  # OUT/canvas.csv
    canvas_assignment: str | None = None  # its assignment column (None: the rubric's title)
    similarity: bool = False  # OUT/similarity.json
    similarity_threshold: float = DEFAULT_THRESHOLD

    def files(self, students: list[str]) -> list[str]:
        """The names in OUT these outputs are written to, for a batch of ``students``."""
        names = [name for name, asked in ((SIMILARITY, self.similarity), (JUNIT, self.junit), (CANVAS, self.canvas)) if asked]
        if self.html:
            names += [INDEX_PAGE, *(f"{student}.html" for student in students)]
        return names


def remove_unasked(out: Path, outputs: ClassOutputs, students: list[str]) -> list[str]:
    """Remove from ``out`` each class output an earlier batch may have written that
    ``outputs`` does not ask for this time; return the names removed. Only a regular file
    (or a link, never followed) is removed: anything else by such a name is left as it is."""
    every = ClassOutputs(html=True, junit=True, canvas=True, similarity=True).files(students)
    asked = set(outputs.files(students))
    removed = []
    for name in every:
        if name in asked:
            continue
        try:
            mode = os.lstat(out / name).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            os.unlink(out / name)
            removed.append(name)
    return removed


def write_class_outputs(
    out: Path,
    outputs: ClassOutputs,
    reports: list[Report],
    files: dict[str, SubmissionFile],
    rubric: Rubric,
    read_in_full: Callable[[], Iterable[Report]],
) -> None:
    """Write what ``outputs`` asks for into ``out``. ``reports`` are the batch's without
    their details; ``read_in_full()`` gives them in full again, one at a time (pages, JUnit
    and similarity need their feedback and counterexamples)."""
    similar = of_batch(read_in_full(), files, outputs.similarity_threshold) if outputs.similarity else None
    if similar is not None:
        write_atomic(out / SIMILARITY, similarity_json(similar[0]))
    if outputs.html:
        write_pages(read_in_full(), out, similar)
    if outputs.junit:
        write_atomic(out / JUNIT, junit_xml(read_in_full()))
    if outputs.canvas:
        write_atomic(out / CANVAS, canvas_csv(reports, outputs.canvas_assignment or rubric.title, rubric.max_score))
