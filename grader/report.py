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

SCHEMA_VERSION = 1
SYMBOLS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}
# Failures where a repro snippet teaches nothing: the code never ran the input.
NO_REPRO_KINDS = frozenset({"not_implemented", "missing_function", "import_failed", "import_timeout", "grader_error"})


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
    sandbox: str = "process"
    diagnoses: list[dict[str, str]] = field(default_factory=list)
    # Attention weights on fixed inputs, the submission's and the reference's, for pages.
    pictures: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def self_check(self) -> bool:
        """Graded without bubblewrap: fine for a student's own check, not a grade of record."""
        return self.sandbox != "bubblewrap"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self) | {"self_check": self.self_check}
        order = ["schema_version", "student", "submission", "submission_sha256", "score", "max_score", "status"]
        return {key: data[key] for key in order} | {k: v for k, v in data.items() if k not in order}


def from_json(text: str) -> Report | None:
    """A report written by :func:`to_json` of this schema version, or None if it is not one."""
    try:
        data = json.loads(text)
        if data.get("schema_version") != SCHEMA_VERSION:
            return None
        data.pop("self_check", None)
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
    # allow_nan=False: a report is strict JSON that any consumer can parse.
    return json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
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
    passed = sum(check.status == "passed" for check in report.checks)
    lines += ["", f"{passed} of {len(report.checks)} checks passed; {total}."]
    return "\n".join(lines) + "\n"
