"""PrairieLearn's ``results.json``, as its external grader reads it (docs/externalGrading.md).

A gradable result has ``score`` in [0, 1], the grade of record: the report's score over
its ``max_score``, bonus included, capped at 1 (PrairieLearn refuses a score above 1,
and records 0 for a rubric worth nothing, as its own Python grader does). A test per
check the student may see carries ``points`` and ``max_points``; a bonus check is a test
worth 0 that scores its points, as on Gradescope (PrairieLearn draws such a test in
grey, neither right nor wrong).

``"gradable": false`` means, in PrairieLearn's words, that the submission could not be
graded ("a syntax error, or if the input was missing, invalid, or formatted
incorrectly"): no points are given or lost and the attempt does not count. Here that is
a report with status ``error``, which the grader writes only when none of the lesson's
functions could be called: the grader cannot read the file as Python or as a notebook
(``unusable_submission``), or it cannot be imported (``import_failed``,
``import_timeout``: a syntax error, or an exception or a hang while importing). Its
sentence goes in ``format_errors``. A file that imports is gradable, even if every
function raises or hangs: it was graded, and scores 0 where it failed.

A report in which the grader itself failed (any check of kind ``grader_error``) is not
gradable either, never a silent 0 or a partial score: ``format_errors`` says the grader
failed, not the file, and that the attempt does not count. Its details stay out: they
can name checks the student must not see.

PrairieLearn has no per-test visibility, so checks that are hidden or shown after the
due date are not tests. Their points still count in ``score``; one test, "Checks graded
out of sight", carries their total, so the sum of the tests' points (the badge
PrairieLearn draws beside the score) agrees with it. That total tells nothing the
score does not; which checks they are and what they found is never said, and the
diagnoses are shown only when no check out of sight failed (as on Gradescope).

PrairieLearn drops results over 1 MiB, so the file is kept under :data:`MAX_BYTES`:
every text is cut to one length, halved until the file fits, so the same report always
gives the same file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.report import (
    CheckEntry,
    Report,
    failure_details,
    score_summary,
    source_lines,
)
from grader.report.safe_text import json_text

MAX_BYTES = 1_000_000  # PrairieLearn's grader host refuses more than 1024 * 1024 bytes
FIELD_CHARS = 20_000  # the first length texts are cut to; halved until the file fits
OUT_OF_SIGHT = "Checks graded out of sight"
GRADER_FAILED = (
    "The grader could not finish grading this submission. This is not a fault of your file, "
    "and this attempt does not count: submit again, and tell your instructor if it happens again."
)


def not_gradable(sentence: str) -> dict[str, Any]:
    """A result that gives and takes no points and keeps the student's attempt, saying why."""
    return {"gradable": False, "format_errors": [sentence]}


def not_gradable_json(sentence: str) -> str:
    """:func:`not_gradable` as the file's text (for the entrypoint, which has no report)."""
    return _dumps(not_gradable(sentence))


def results(report: Report, field_chars: int = FIELD_CHARS) -> dict[str, Any]:
    """The report as a PrairieLearn ``results.json`` object, each text cut to ``field_chars``."""

    def cut(text: str) -> str:
        if len(text) <= field_chars:
            return text
        return text[:field_chars] + f"\n[... {len(text) - field_chars} more characters not shown]"

    if any(check.kind == "grader_error" for check in report.checks):
        return not_gradable(GRADER_FAILED)
    if report.status == "error":
        return not_gradable(cut(report.error or "attention.py could not be graded"))
    visible = [check for check in report.checks if check.visibility == "visible"]
    out_of_sight = [check for check in report.checks if check.visibility != "visible"]
    tests = [_test(check, cut) for check in visible]
    if out_of_sight:
        tests.append(_out_of_sight_test(out_of_sight))
    return {
        "gradable": True,
        "score": min(1.0, report.score / report.max_score) if report.max_score > 0 else 0.0,
        "message": cut(_message(report, bool(out_of_sight))),
        "output": cut(_output(report)),
        "tests": tests,
    }


def results_json(report: Report) -> str:
    """PrairieLearn's external grader ``results.json``: ``gradable``, the score as a
    fraction, and a test per check the student may see, cut to stay under the 1 MiB
    PrairieLearn accepts (:func:`results` as JSON of at most :data:`MAX_BYTES` bytes)."""
    field_chars = FIELD_CHARS
    while True:
        text = _dumps(results(report, field_chars))
        # Cut to nothing, every text is a short marker: a rubric names each of the
        # grader's few dozen checks at most once, so that always fits.
        if len(text.encode("utf-8")) <= MAX_BYTES or field_chars == 0:
            return text
        field_chars //= 2


def _dumps(result: dict[str, Any]) -> str:
    return json_text(result, indent=2) + "\n"


def _test(check: CheckEntry, cut: Callable[[str], str]) -> dict[str, Any]:
    failed = check.status != "passed"
    # The feedback is the message; the lines that reproduce the failure are the output.
    repro = failure_details(None, check.kind, check.counterexample) if failed else []
    return {
        "name": check.id + (" (bonus)" if check.bonus else ""),
        "description": cut(check.description),
        "points": check.points,
        "max_points": 0.0 if check.bonus else check.max_points,
        "message": cut(check.feedback or "") if failed else "",
        "output": cut("\n".join(repro)),
    }


def _out_of_sight_test(checks: list[CheckEntry]) -> dict[str, Any]:
    return {
        "name": OUT_OF_SIGHT,
        "description": "Their points count in your score; which checks they are and what they found is not shown.",
        "points": sum(check.points for check in checks),
        "max_points": sum(check.max_points for check in checks if not check.bonus),
        "message": "",
        "output": "",
    }


def _message(report: Report, out_of_sight: bool) -> str:
    lines = [score_summary(report)]
    if report.score > report.max_score > 0:
        lines.append("PrairieLearn records at most 100%, so bonus points beyond it are not added.")
    if out_of_sight:
        lines.append("Some checks are graded out of sight: their points are in your score, their results not shown.")
    return "\n".join(lines)


def _output(report: Report) -> str:
    """The diagnoses, then how a notebook was read (see grader.sources)."""
    read = ["How the file was read:", *source_lines(report.source)] if report.source else []
    return "\n\n".join(part for part in (_diagnoses(report), "\n".join(read)) if part)


def _diagnoses(report: Report) -> str:
    # A diagnosis could give away what a check out of sight found.
    if not report.diagnoses or any(c.status != "passed" and c.visibility != "visible" for c in report.checks):
        return ""
    return "\n".join(["What went wrong:", *(f"- {diagnosis['message']}" for diagnosis in report.diagnoses)])
