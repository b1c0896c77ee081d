"""Grade submission files: read each (grader.sources), run the checks, score them into a report.

The steps are apart so that a batch can run the middle one elsewhere (grader.batch.executors):
:func:`prepare` reads a file where the grader runs, :func:`check_runs` runs the checks in a
check process (locally, or on a cluster's worker), and :func:`report_of` scores what they
found, again where the grader runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader import assignments, sources
from grader.assignments.rubric import Rubric
from grader.engine.claims import Claims
from grader.engine.runner import CheckProcess, CheckRun
from grader.engine.scoring import failed_run, score
from grader.errors import GradingFailed, UsageError
from grader.report import Report
from grader.report.safe_text import one_line
from grader.sandbox import Limits, bounds
from grader.sources.files import BLANK_ID, SubmissionFile, blank_name_note


@dataclass(frozen=True)
class Prepared:
    """A submission's bytes and report identity, or the report of a file that cannot be graded."""

    identity: dict[str, Any]
    content: bytes
    # What the check process names its copy, and feedback the file: the handout's name
    # (attention.py, attention.ipynb), or the student's own where it may be (sources.own_stem).
    file_name: str
    unusable: Report | None


@dataclass(frozen=True)
class RunFailure:
    """A check run that could not grade a submission: why, and after how long."""

    message: str
    duration_s: float


Outcome = CheckRun | RunFailure


def prepare(
    path: Path,
    rubric: Rubric,
    limits: Limits,
    student: str | None = None,
    *,
    within: Path | None = None,
    follow_links: bool = True,
    note: str | None = None,
    own_name: bool = False,
) -> Prepared:
    """Read ``path`` once: the bytes every check run of it grades, and its report's identity
    (with ``note`` among what its report says of how the file was read). A file that
    cannot be graded (not Python, an empty notebook) comes with its ``error`` report; one
    that cannot be read at all (a link where none may be, a pipe, too large: see
    grader.sources.files, for ``within`` and ``follow_links``) raises :class:`UsageError`.
    With ``own_name`` (a student checking their own file), feedback calls the file by its
    name where it may (:func:`grader.sources.own_stem`); else by the handout's, as a batch
    does whatever its folder calls each file."""
    content = sources.read_bytes(path, within=within, follow_links=follow_links)
    suffix = sources.NOTEBOOK_SUFFIX if sources.is_notebook_name(path.suffix) else ".py"
    if student is None and not path.stem.strip():  # " .py" alone (a batch names its files itself)
        student, note = BLANK_ID, note or blank_name_note(path.name)
    who = identity(student or path.stem, str(path), limits)
    stem = sources.own_stem(path) if own_name else None
    return prepare_content(content, suffix, who, rubric, limits, note=note, stem=stem)


def prepare_content(
    content: bytes,
    suffix: str,
    who: dict[str, Any],
    rubric: Rubric,
    limits: Limits,
    *,
    note: str | None = None,
    stem: str | None = None,
) -> Prepared:
    """:func:`prepare` of a submission that is bytes already (``suffix``: ``.py`` or a
    notebook's), such as the code a notebook kernel has run; ``who`` as :func:`identity`
    makes it; ``stem``: what feedback calls the file (default: the handout's name)."""
    who = {**who, "submission_sha256": hashlib.sha256(content).hexdigest()}
    assignment = rubric.of
    file_name = f"{stem or Path(assignment.handout).stem}{suffix}"
    try:
        # The check process reads the same bytes the same way; this reading is for the report.
        source = sources.parse(content, suffix=suffix, assignment=assignment, stem=stem)
        notes = [note, assignments.another_assignments_note(set(source.defined_names), assignment)]
        added = tuple(text for text in notes if text)
        who["source"] = replace(source, notes=(*source.notes, *added)).summary() if added else source.summary()
    except sources.Unusable as error:
        unusable = failed_run(
            rubric, str(error), kind="unusable_submission", duration_s=0.0, bounds=bounds.enforced(limits), **who
        )
        return Prepared(who, content, file_name, unusable)
    return Prepared(who, content, file_name, None)


def identity(student: str, submission: str, limits: Limits) -> dict[str, Any]:
    """Who and what a report is of: the id and where the submission came from, as every
    output can carry them (grader.report.safe_text.one_line: a name need not be UTF-8, and may
    hold control characters)."""
    return {
        "student": one_line(student),
        "submission": one_line(submission),
        "submission_sha256": "",
        "sandbox": limits.isolation,
        "examples": limits.examples,
        "limits": limits.budgets(),
    }


def prepare_in_batch(submission: SubmissionFile, rubric: Rubric, limits: Limits) -> Prepared:
    """:func:`prepare` of a file found in a batch's folder (no link below it is followed),
    where a file that cannot be read gets an ``error`` report too."""
    try:
        return prepare(
            submission.path, rubric, limits, submission.student, within=submission.folder, note=submission.note
        )
    except UsageError as error:
        who = identity(submission.student or submission.path.stem, str(submission.path), limits)
        # A handout that is not there: its note says what the folder holds instead, and what to rename.
        missing = submission.note is not None and not os.path.lexists(submission.path)
        reason = submission.note if missing else str(error)
        report = failed_run(rubric, reason, kind="unusable_submission", duration_s=0.0, **who)
        return Prepared(who, b"", "", report)


def report_of(prepared: Prepared, rubric: Rubric, outcome: Outcome, sandbox_bounds: dict[str, Any] | None) -> Report:
    """The report of a prepared submission whose check run ended with ``outcome``, in a
    sandbox with ``sandbox_bounds`` (grader.sandbox.bounds.enforced, where the run was; None: not known)."""
    if isinstance(outcome, RunFailure):
        return failed_run(
            rubric, outcome.message, kind="grader_error", duration_s=outcome.duration_s,
            bounds=sandbox_bounds, **prepared.identity,
        )
    return score(
        rubric, outcome.results, diagnoses=outcome.diagnoses, pictures=outcome.pictures,
        duration_s=outcome.duration_s, bounds=sandbox_bounds, **prepared.identity,
    )


def check_runs(
    submissions: list[tuple[bytes, str]],
    rubric: Rubric,
    limits: Limits,
    checks: CheckProcess,
    claims: Claims | None = None,
) -> list[Outcome | None]:
    """What the checks found for each ``(content, file_name)`` (see :class:`Prepared`),
    graded in one check run (see
    :meth:`CheckProcess.run_many`), in order, each as it would be alone.

    A run that breaks is run again one submission at a time, so that only one that breaks
    it alone gets a :class:`RunFailure`; so is one that took longer than
    ``limits.submission_budget`` in the shared run (the budget is a submission's own, not
    borrowed from the others'). With ``claims`` (grader.engine.claims), the submissions another
    job took over are None, and never graded here.
    """
    outcomes: list[Outcome | None] = [None] * len(submissions)
    again = list(range(len(submissions)))
    if len(submissions) > 1 or claims is not None:
        try:
            runs = checks.run_many(
                [content for content, _ in submissions], rubric, limits,
                file_names=[file_name for _, file_name in submissions], claims=claims and claims.folder,
            )
        except GradingFailed:
            runs = None
        if runs is not None:
            taken_over = claims.taken_over if claims is not None else set()
            again = [index for index, run in enumerate(runs) if index not in taken_over and run.duration_s > limits.submission_budget]
            for index, run in enumerate(runs):
                if index not in taken_over and index not in again:
                    outcomes[index] = run
    for index in again:
        if claims is not None and not claims.keep(index):
            continue
        content, file_name = submissions[index]
        started = time.monotonic()
        try:
            outcomes[index] = checks.run(content, rubric, limits, file_name=file_name)
        except GradingFailed as error:
            outcomes[index] = RunFailure(str(error), time.monotonic() - started)
    return outcomes


def grade_file(
    path: Path,
    rubric: Rubric,
    limits: Limits,
    *,
    student: str | None = None,
    checks: CheckProcess | None = None,
    follow_links: bool = True,
) -> Report:
    """The report for one submission; a check run that breaks gives an ``error`` report.

    ``checks`` is the check process to run in (a new one when None). Feedback calls the
    file by its own name where it may (see :func:`prepare`). Raises :class:`UsageError`
    only when the file cannot be read (or is a link and not ``follow_links``).
    """
    prepared = prepare(path, rubric, limits, student, follow_links=follow_links, own_name=True)
    return grade_prepared(prepared, rubric, limits, checks)


def grade_prepared(prepared: Prepared, rubric: Rubric, limits: Limits, checks: CheckProcess | None = None) -> Report:
    """The report for one prepared submission, checked in ``checks`` (a new check process
    when None); a check run that breaks gives an ``error`` report."""
    if prepared.unusable is not None:
        return prepared.unusable
    with contextlib.ExitStack() as stack:
        (outcome,) = check_runs(
            [(prepared.content, prepared.file_name)], rubric, limits, checks or stack.enter_context(CheckProcess())
        )
    return report_of(prepared, rubric, outcome, bounds.enforced(limits))


def grade_files(files: list[SubmissionFile], rubric: Rubric, limits: Limits, checks: CheckProcess) -> list[Report]:
    """Reports for ``files``, graded in one check run as :func:`check_runs` says; a file
    that cannot be read gets an ``error`` report."""
    prepared = [prepare_in_batch(file, rubric, limits) for file in files]
    usable = [item for item in prepared if item.unusable is None]
    outcomes = iter(check_runs([(item.content, item.file_name) for item in usable], rubric, limits, checks))
    sandbox_bounds = bounds.enforced(limits)
    return [item.unusable or report_of(item, rubric, next(outcomes), sandbox_bounds) for item in prepared]
