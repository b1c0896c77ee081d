"""The versioned report: its schema, its renderers (JSON, text) and atomic writes.

``SCHEMA_VERSION`` changes whenever a field changes meaning or disappears; adding a
field does not change it.
"""

from __future__ import annotations

import json
import os
import tempfile
import textwrap
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.report.safe_text import json_text, shown

SCHEMA_VERSION = 1
SYMBOLS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}
# Failures where a repro snippet teaches nothing: the code never ran the input.
NO_REPRO_KINDS = frozenset({"not_implemented", "missing_function", "import_failed", "import_timeout", "grader_error"})
# The id of a diagnosis that describes what no mistake of the catalogue explains.
OBSERVED = "observed"
# The id of a diagnosis that says what an unfinished function (a stub, a placeholder) does.
UNFINISHED = "unfinished"
# Diagnoses that name no mistake of the catalogue: what counts mistakes leaves them out.
NOT_MISTAKES = frozenset({OBSERVED, UNFINISHED})


@dataclass(frozen=True)
class CheckEntry:
    id: str
    description: str
    status: str
    points: float
    max_points: float
    visibility: str
    bonus: bool
    kind: str | None
    feedback: str | None
    counterexample: dict[str, Any] | None


REPORT_KEY_ORDER = (
    "schema_version", "student", "submission", "submission_sha256", "score", "max_score", "status", "error", "checks",
    "rubric", "grader_version", "duration_s", "sandbox", "examples", "assignment",
)


@dataclass(frozen=True)
class Report:
    student: str
    submission: str
    submission_sha256: str
    score: float
    max_score: float
    status: str
    error: str | None
    checks: list[CheckEntry]
    rubric: dict[str, str]
    grader_version: str
    duration_s: float
    assignment: str  # the assignment graded: its name (grader.assignments), a course's with its digest
    sandbox: str = "process"
    # What the checks' examples were drawn from: "public", or a course secret's digest
    # (grader.checking.secret): the same file gets the same grade under the same one.
    examples: str = "public"
    diagnoses: list[dict[str, str]] = field(default_factory=list)
    # Attention weights on fixed inputs, the submission's and the reference's, for pages.
    pictures: dict[str, Any] = field(default_factory=dict)
    # How a notebook was read: its cells, what was left out and why (None: a Python file).
    source: dict[str, Any] | None = None
    # The kernel's bounds on the whole sandbox, what enforced each, and the sandbox's real
    # uid outside its namespaces (grader.sandbox.bounds.enforced).
    bounds: dict[str, Any] | None = None
    # The time and resource budgets it was graded under (grader.sandbox.Limits.budgets).
    limits: dict[str, float] | None = None
    schema_version: int = SCHEMA_VERSION

    @property
    def self_check(self) -> bool:
        """Graded without bubblewrap: fine for a student's own check, not a grade of record."""
        return self.sandbox != "bubblewrap"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self) | {"self_check": self.self_check}
        # The keys in the order reports have always had them, whatever the fields' order.
        order = [*REPORT_KEY_ORDER, *(key for key in data if key not in REPORT_KEY_ORDER)]
        return {key: data[key] for key in order}


def from_json(text: str) -> Report | None:
    """A report written by :func:`to_json` of this schema version, or None if it is not one."""
    try:
        data = json.loads(text)
        if data.get("schema_version") != SCHEMA_VERSION:
            return None
        data.pop("self_check", None)
        data.pop("signature", None)  # a batch's (grader.batch.signing)
        checks = [CheckEntry(**check) for check in data.pop("checks")]
        return Report(checks=checks, **data)
    except (ValueError, TypeError, AttributeError, KeyError):
        return None


def without_details(report: Report) -> Report:
    """``report`` as a gradebook needs it (scores, statuses, diagnoses), without the
    feedback, counterexamples and pictures only its own page shows: about 30 KiB of a
    report, which a batch would otherwise hold for every submission until its end."""
    checks = [replace(check, feedback=None, counterexample=None) for check in report.checks]
    return replace(report, checks=checks, pictures={})


def to_json(report: Report) -> str:
    """The report as JSON, as its JSON Schema describes it: strict JSON any consumer can
    parse, no nan, and what a submission controls shown as text (grader.report.safe_text)."""
    return json_text(report.to_dict(), indent=2) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # Every output makes what a submission controls encodable (grader.report.safe_text); should
        # one miss a lone surrogate, it is written escaped rather than stop a batch.
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _points(value: float) -> str:
    return f"{value:g}"


def score_summary(report: Report) -> str:
    """``"96/100 points"``, with bonus points apart: ``"100/100 points (+5 bonus)"``."""
    bonus = sum(check.points for check in report.checks if check.bonus)
    total = f"{_points(report.score - bonus)}/{_points(report.max_score)} points"
    return total + (f" (+{_points(bonus)} bonus)" if bonus else "")


def check_details(check: CheckEntry) -> list[str]:
    """What a failed check tells its reader: the feedback, then lines that reproduce it."""
    return failure_details(check.feedback, check.kind, check.counterexample)


def failure_details(feedback: str | None, kind: str | None, counterexample: dict[str, Any] | None) -> list[str]:
    lines = [feedback] if feedback else []
    if counterexample and kind not in NO_REPRO_KINDS:
        lines.append("reproduce it:")
        lines.extend(f"  {line}" for line in counterexample["repro"].splitlines() if line)
    return lines


def render_text(report: Report) -> str:
    """The report as a student reads it: score first, then each check and what broke."""
    total = score_summary(report)
    lines = [f"{report.submission} ({report.student}): {total}"]
    if report.self_check:
        lines.append("  (a self-check: graded without the bubblewrap sandbox, so not a grade of record)")
    if report.error:
        lines.append(f"  {report.error}")
    if report.diagnoses:
        lines += ["", "What went wrong:"]
        for diagnosis in report.diagnoses:
            lines += textwrap.wrap(diagnosis["message"], width=88, initial_indent="  - ", subsequent_indent="    ")
    lines.append("")
    width = max((len(check.id) for check in report.checks), default=0)
    for check in report.checks:
        tag = " (bonus)" if check.bonus else ""
        lines.append(
            f"{SYMBOLS[check.status]:>7}  {check.id:<{width}}  "
            f"{_points(check.points)}/{_points(check.max_points)}{tag}  {check.description}"
        )
        if check.status == "passed" or report.error:
            continue
        lines.extend(f"         {line}" for line in check_details(check))
    if report.source:
        lines += ["", "How the file was read:"]
        lines.extend(f"  {line}" for line in source_lines(report.source))
    passed = sum(check.status == "passed" for check in report.checks)
    lines += ["", f"{passed} of {len(report.checks)} checks passed; {total}."]
    return shown("\n".join(lines) + "\n")  # read in terminals: nothing there may act


def source_lines(source: dict[str, Any]) -> list[str]:
    """What a report's ``source`` says, as lines for a student: the notes, the cells the
    code came from, and what was left out (runs of one reason in one cell as one line)."""
    lines = list(source.get("notes", []))
    if source.get("kind") != "notebook":
        return lines
    cells = source.get("cells") or []
    numbered = f"cell{'s' if len(cells) > 1 else ''} {', '.join(map(str, cells))}"
    lines.append(f"Graded the code of {numbered}." if cells else "No code was graded.")
    left_out = source.get("left_out") or []
    if left_out:
        lines.append("Left out, so not run by the grader:")
    groups: list[list[dict[str, Any]]] = []
    for piece in left_out:
        last = groups[-1][-1] if groups else None
        if last is not None and (last["cell"], last["reason"]) == (piece["cell"], piece["reason"]):
            groups[-1].append(piece)
        else:
            groups.append([piece])
    for group in groups:
        first, end = group[0], group[-1]
        where = f"cell {first['cell']}, line {first['line']}"
        if len(group) > 1:
            where = f"cell {first['cell']}, lines {first['line']}-{end['line']}"
        more = f"  (and {len(group) - 1} more)" if len(group) > 1 else ""
        lines.append(f"  {where}:  {first['code']}{more}")
        lines += textwrap.wrap(first["reason"], width=84, initial_indent="      why: ", subsequent_indent="           ")
    hidden = int(source.get("left_out_count") or 0) - len(left_out)
    if hidden > 0:
        lines.append(f"  ... and {hidden} more pieces left out")
    return lines
