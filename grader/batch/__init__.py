"""Grade a folder of submissions: find them (grader.batch.submissions), grade them
(grader.batch.executors), write the gradebook.

Each submission gets ``OUT/<id>.json``; the batch ends with ``OUT/summary.json`` and
``OUT/grades.csv``. This module is the batch's only writer, whichever executor grades.
One bad submission never stops the batch: it gets a report with status ``error``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path

from grader import __version__, sources
from grader.assignments import Assignment, outside
from grader.assignments.rubric import Rubric, load_rubric
from grader.batch import signing
from grader.batch.executors import Executor, local
from grader.batch.outputs import ClassOutputs, remove_unasked, write_class_outputs
from grader.batch.submissions import find_submissions
from grader.engine.scoring import rescored, rubric_summary
from grader.errors import UsageError
from grader.report import (
    SCHEMA_VERSION,
    Report,
    from_json,
    to_json,
    without_details,
    write_atomic,
)
from grader.report.formats.gradebook import grades_csv
from grader.report.safe_text import json_text
from grader.sandbox import Limits
from grader.sources.files import SubmissionFile


def grade_folder(
    folder: Path,
    out: Path,
    rubric: Rubric,
    limits: Limits,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    regrade: bool = False,
    outputs: ClassOutputs = ClassOutputs(),
    on_report: Callable[[Report, int, int, bool], None] = lambda report, done, total, kept: None,
    on_distrusted: Callable[[str], None] = lambda student: None,
    on_removed: Callable[[list[str]], None] = lambda names: None,
) -> list[Report]:
    """Grade every submission in ``folder`` into ``out``; return the reports sorted by id,
    without their details (see report.without_details, and :func:`read_in_full`), so
    memory does not grow with the batch.

    ``executor`` grades (grader.batch.executors; by default :mod:`grader.batch.executors.local` with
    ``jobs`` jobs). A report already in ``out`` for the same file content, rubric, grader
    version, sandbox and examples (grader.checking.secret) is kept (so a killed batch resumes where it stopped) unless
    ``regrade``, if this grader wrote it (grader.batch.signing) for that very file: any other
    report there is graded again, and ``on_distrusted(student)`` is told of it.
    ``on_report(report, done, total, kept)`` is called with each full report as its
    submission finishes.

    Then it writes ``summary.json``, ``grades.csv`` and the class ``outputs`` asked for,
    and removes those an earlier batch wrote that were not asked for this time
    (:mod:`grader.batch.outputs`), telling ``on_removed`` their names.
    """
    refuse_overlap(folder, out)
    refuse_in_assignment(rubric.of, submissions=folder, reports=out)
    with _read_once(rubric) as rubric:
        return _graded(
            folder, out, rubric, limits, jobs=jobs, executor=executor, regrade=regrade, outputs=outputs,
            on_report=on_report, on_distrusted=on_distrusted, on_removed=on_removed,
        )


def _graded(
    folder: Path,
    out: Path,
    rubric: Rubric,
    limits: Limits,
    *,
    jobs: int,
    executor: Executor | None,
    regrade: bool,
    outputs: ClassOutputs,
    on_report: Callable[[Report, int, int, bool], None],
    on_distrusted: Callable[[str], None],
    on_removed: Callable[[list[str]], None],
) -> list[Report]:
    submissions = find_submissions(folder, rubric.of.handout)
    out.mkdir(parents=True, exist_ok=True)
    key = signing.report_key(out)
    reports = []
    pending = []
    distrusted = []
    for submission in submissions:
        kept = None
        if not regrade:
            kept, trusted = _kept_report(out, key, submission, rubric, limits)
            if not trusted:
                distrusted.append(submission.student)
                on_distrusted(submission.student)
        if kept is None:
            pending.append(submission)
        else:
            reports.append(without_details(kept))
            on_report(kept, len(reports), len(submissions), True)
    grade = executor or functools.partial(local.reports, jobs=jobs)
    # Closed at once on Ctrl-C: the executor starts nothing new, and what is in flight is dropped.
    with contextlib.closing(grade(pending, rubric, limits)) as graded:
        for report in graded:
            write_atomic(out / f"{report.student}.json", signing.signed(to_json(report), key))
            reports.append(without_details(report))
            on_report(report, len(reports), len(submissions), False)
    reports.sort(key=lambda report: report.student)
    students = [report.student for report in reports]
    removed = remove_unasked(out, outputs, students)
    notes = {submission.student: submission.note for submission in submissions if submission.note}
    batch = summary(reports, rubric, distrusted, notes) | {
        "outputs": ["summary.json", "grades.csv", *outputs.files(students)],
        "removed_outputs": removed,
        "reports_not_in_batch": _reports_not_in_batch(out, students),
    }
    write_atomic(out / "summary.json", json_text(batch, indent=2) + "\n")
    write_atomic(out / "grades.csv", grades_csv(reports, rubric))
    files = {submission.student: submission for submission in submissions}
    write_class_outputs(out, outputs, reports, files, rubric, lambda: read_in_full(out, reports))
    if removed:
        on_removed(removed)
    return reports


# The files a batch writes in OUT besides the reports: none of them is a report.
BATCH_FILES = frozenset({"summary.json", "similarity.json"})


def _reports_not_in_batch(out: Path, students: list[str]) -> list[str]:
    """The ids of the reports in ``out`` whose submission this batch did not grade (a
    submission since removed from the folder): left in place, and listed so that no one
    takes them for this batch's."""
    graded = {f"{student}.json" for student in students} | BATCH_FILES
    with os.scandir(out) as entries:
        return sorted(entry.name[: -len(".json")] for entry in entries if entry.name.endswith(".json") and entry.name not in graded)


def read_in_full(out: Path, reports: list[Report]) -> Iterator[Report]:
    """Each of ``reports`` (from :func:`grade_folder`) in full, read back from ``out`` one
    at a time; as it is if its file is gone or no longer the report this batch signed."""
    key = signing.report_key(out)
    for report in reports:
        text = signing.read_signed(out, f"{report.student}.json", key)
        full = None if text is None else from_json(text)
        yield full if full is not None and full.student == report.student else report


@contextlib.contextmanager
def _read_once(rubric: Rubric) -> Iterator[Rubric]:
    """``rubric`` over a snapshot of its course's folder, read once for the whole batch
    (see :func:`outside.read_once`); the rubric read again from the snapshot when it is one
    of the folder's files."""
    with outside.read_once(rubric.of) as assignment:
        if assignment is rubric.of:
            yield rubric
            return
        path = Path(rubric.path).resolve()
        inside = rubric.of.folder in path.parents
        read = load_rubric(assignment.folder / path.relative_to(rubric.of.folder) if inside else path, assignment)
        yield dataclasses.replace(read, read_from=rubric.path)


def refuse_in_assignment(assignment: Assignment, **folders: Path) -> None:
    """No folder of ``folders`` (by what it is: ``reports=OUT``) may be, hold or lie in the
    assignment's folder: its files are what the assignment is (its digest, its bundles),
    and a course's folder is often published."""
    if assignment.folder is None:
        return
    course = assignment.folder.resolve()
    for what, folder in folders.items():
        given = folder.resolve()
        if given == course or course in given.parents or given in course.parents:
            raise UsageError(
                f"the {what} folder {folder} may not be, hold or lie in the assignment's folder {assignment.folder}: "
                "choose one outside it"
            )


def refuse_overlap(folder: Path, out: Path) -> None:
    """OUT may not be, hold or lie inside the submissions folder: what a student put there
    could then be read as a report, and the batch's files as submissions."""
    submissions, reports = folder.resolve(), out.resolve()
    if reports == submissions or submissions in reports.parents or reports in submissions.parents:
        raise UsageError(
            f"the reports folder {out} may not be, hold or lie inside the submissions folder {folder}: "
            "choose --out outside it"
        )


def _kept_report(
    out: Path, key: bytes, submission: SubmissionFile, rubric: Rubric, limits: Limits
) -> tuple[Report | None, bool]:
    """The report in ``out`` to keep for ``submission`` (None: grade it), and whether what
    was there, if anything, could be trusted (signed by this OUT's key, for this file, its
    score its checks' under the rubric). Only a report graded as this batch would grade is
    kept: the same file, rubric, grader, sandbox, examples, budgets and assignment."""
    name = f"{submission.student}.json"
    if not os.path.lexists(out / name):
        return None, True
    text = signing.read_signed(out, name, key)
    previous = None if text is None else from_json(text)
    if previous is None or previous.student != submission.student:
        return None, False
    try:
        # Read as grading reads it: a link, a pipe or an oversized file is graded again
        # (into its error report), never opened or read whole here.
        digest = hashlib.sha256(sources.read_bytes(submission.path, within=submission.folder)).hexdigest()
    except UsageError:
        return None, True
    same = (
        previous.submission_sha256 == digest
        and previous.rubric.get("sha256") == rubric.sha256
        and previous.grader_version == __version__
        and previous.sandbox == limits.isolation
        and previous.examples == limits.examples
        and previous.limits == limits.budgets()
        and previous.assignment == rubric.assignment
    )
    if not same:
        return None, True
    # Signed, yet its score is not its checks' under this very rubric: graded again.
    return (previous, True) if rescored(rubric, previous) is not None else (None, False)


def summary(
    reports: list[Report], rubric: Rubric, distrusted: list[str] | None = None, notes: dict[str, str] | None = None
) -> dict:
    """The batch's summary.json; ``distrusted``: the ids whose report found in OUT this
    grader had not written for their file (each was graded again); ``notes``: what the
    folder's names made of a submission (grader.batch.submissions: a file named otherwise, a
    clashing id), by id."""
    notes = notes or {}
    scores = [report.score for report in reports]
    return {
        "schema_version": SCHEMA_VERSION,
        "grader_version": __version__,
        "rubric": rubric_summary(rubric),
        "max_score": rubric.max_score,
        "count": len(reports),
        "graded": sum(report.status == "graded" for report in reports),
        "errors": sum(report.status == "error" for report in reports),
        "mean_score": round(statistics.fmean(scores), 3) if scores else None,
        "median_score": statistics.median(scores) if scores else None,
        "reports_not_trusted": sorted(distrusted or []),
        "named_otherwise": sorted(notes),
        "submissions": [
            {
                "student": report.student,
                "submission": report.submission,
                "score": report.score,
                "max_score": report.max_score,
                "status": report.status,
                "error": report.error,
                "report": f"{report.student}.json",
                "note": notes.get(report.student),
            }
            for report in reports
        ],
    }
