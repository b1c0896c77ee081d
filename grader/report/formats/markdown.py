"""The report as Markdown, for a GitHub Actions job summary (``$GITHUB_STEP_SUMMARY``).

A table of checks first, then what went wrong and how to reproduce it. Whatever the
submission controls (its id, its exception messages) is escaped, so it cannot break the
table or inject HTML into the page.
"""

from __future__ import annotations

import html
import re

from grader.report import SYMBOLS, Report, check_details, score_summary, source_lines
from grader.report.safe_text import shown

MARKDOWN_SYNTAX = re.compile(r"([\\`*_\[\]()!#|<>{}~])")


def _cell(text: str) -> str:
    """One line of plain text: Markdown syntax and HTML escaped, so links, images and tags
    from a submission show as the characters they are (control characters too)."""
    return MARKDOWN_SYNTAX.sub(r"\\\1", html.escape(" ".join(shown(text).split()), quote=False))


def job_summary(report: Report) -> str:
    """Markdown for a GitHub Actions job summary: a table of the checks, what went wrong,
    and each failure with the lines that reproduce it."""
    lines = [f"## {_cell(report.student)}: {score_summary(report)}", ""]
    if report.self_check:
        lines += ["_Graded without the bubblewrap sandbox: a self-check, not a grade of record._", ""]
    if report.error:
        lines += [_cell(report.error), ""]
    lines += ["| result | check | points | what it checks |", "| --- | --- | ---: | --- |"]
    for check in report.checks:
        bonus = " (bonus)" if check.bonus else ""
        lines.append(
            f"| {SYMBOLS[check.status]} | `{check.id}` | {check.points:g}/{check.max_points:g}{bonus} "
            f"| {_cell(check.description)} |"
        )
    if report.diagnoses:
        lines += ["", "### What went wrong", ""]
        lines += [f"- {_cell(diagnosis['message'])}" for diagnosis in report.diagnoses]
    failed = [check for check in report.checks if check.status != "passed" and not report.error]
    if failed:
        lines += ["", "### Failed checks"]
    for check in failed:
        lines += ["", f"**`{check.id}`**", "", "```text", *(_fenced(line) for line in check_details(check)), "```"]
    if report.source:
        lines += ["", "### How the file was read", "", "```text", *map(_fenced, source_lines(report.source)), "```"]
    return "\n".join(lines) + "\n"


def _fenced(line: str) -> str:
    # A line of backticks would close the fence early.
    return shown(line).replace("```", "` ` `")
