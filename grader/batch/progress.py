"""What ``grader grade`` shows while it works and when it is done.

A progress bar (done/total, rate, errors so far, ETA) when stderr is a terminal, and
nothing while grading otherwise, so CI logs stay short; then a summary either way.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import IO

import click

from grader.report import Report

SLOWEST_SHOWN = 3
IDS_SHOWN = 5


class BatchProgress:
    """Receives each finished report (``grade_folder``'s ``on_report``) and renders progress."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.started = time.monotonic()
        self.kept = 0
        self.errors = 0
        self.distrusted: list[str] = []  # whose report in OUT the grader had not written
        self.removed: list[str] = []  # class outputs of an earlier batch not asked for this time
        self._bar = None

    def __call__(self, report: Report, done: int, total: int, kept: bool) -> None:
        self.kept += kept
        self.errors += report.status == "error"
        if not self.interactive:
            return
        if self._bar is None:
            self._bar = click.progressbar(
                length=total, label="grading", file=self.stream, show_pos=True, show_eta=True,
                item_show_func=self._status,
            )
            self._bar.render_progress()
        self._bar.update(1)

    def not_trusted(self, student: str) -> None:
        """``grade_folder``'s ``on_distrusted``: a report in OUT this grader did not write."""
        self.distrusted.append(student)

    def removed_outputs(self, names: list[str]) -> None:
        """``grade_folder``'s ``on_removed``: outputs of an earlier batch it removed."""
        self.removed.extend(names)

    def _status(self, _item: object) -> str:
        graded = (self._bar.pos if self._bar is not None else 0) - self.kept
        rate = graded / max(time.monotonic() - self.started, 1e-9)
        return f"{rate:.1f}/s, {self.errors} errors"

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.render_finish()


def summary_text(
    reports: list[Report],
    *,
    kept: int,
    elapsed_s: float,
    out: Path,
    distrusted: list[str] | None = None,
    named_otherwise: list[str] | None = None,
    removed: list[str] | None = None,
) -> str:
    """The lines printed when a batch is done: count, scores, the slowest submissions, the
    reports found in OUT that this grader had not written (``distrusted``), and the ids of
    files named otherwise than a submission is (``named_otherwise``: each report says how),
    and the outputs of an earlier batch removed because this one was not asked for them."""
    scores = [report.score for report in reports]
    errors = sum(report.status == "error" for report in reports)
    max_score = reports[0].max_score if reports else 0
    graded = len(reports) - kept
    lines = [
        f"graded {graded} submission{'' if graded == 1 else 's'} in {elapsed_s:.1f} s"
        + (f" ({kept} kept from an earlier run)" if kept else ""),
        f"  scores: mean {statistics.fmean(scores):.1f}, median {statistics.median(scores):g} of {max_score:g};"
        f" {errors} with errors",
    ]
    if distrusted:
        count = f"1 report in {out} was" if len(distrusted) == 1 else f"{len(distrusted)} reports in {out} were"
        lines.append(
            f"  {count} not written by this grader for its file, or changed since ({_some(distrusted)}): graded again"
        )
    if named_otherwise:
        count = "1 submission's name" if len(named_otherwise) == 1 else f"{len(named_otherwise)} submissions' names"
        lines.append(
            f"  {count} needed a note ({_some(named_otherwise)}): renamed, clashing or missing files; "
            "each report's note says what was graded"
        )
    if removed:
        lines.append(
            f"  removed what an earlier batch wrote and this one was not asked for: {_some(removed)} "
            "(summary.json lists them under removed_outputs)"
        )
    slowest = sorted(reports, key=lambda report: report.duration_s, reverse=True)[:SLOWEST_SHOWN]
    if slowest:
        lines.append("  slowest: " + ", ".join(f"{r.student} ({r.duration_s:.1f} s)" for r in slowest))
    lines.append(f"reports in {out}")
    return "\n".join(lines) + "\n"


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:IDS_SHOWN]) + (", ..." if len(ids) > IDS_SHOWN else "")
