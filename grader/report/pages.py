"""HTML pages: one per student report and one for a class, each a single self-contained file.

No scripts, fonts, images or stylesheets are fetched: pictures are inline SVG and the
style sheet is inline, so a page opens the same from a laptop, a course site or an
archive. Everything that comes from a report (names, feedback, repro snippets) goes
through :func:`escape`: a student's file name or an exception message can inject no
markup, and control characters and lone surrogates show as text (grader.report.safe_text).
"""

from __future__ import annotations

import html
import math
import statistics
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from grader import assignments
from grader.report import (
    NOT_MISTAKES,
    Report,
    score_summary,
    source_lines,
    without_details,
    write_atomic,
)
from grader.report.safe_text import shown


def escape(text: str) -> str:
    """``text`` as HTML shows it: markup escaped, control characters as text."""
    return html.escape(shown(text))


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 64em; color: #1d1d1f; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 2em; }
.score { font-size: 1.3em; font-weight: 600; } .muted { color: #666; }
table { border-collapse: collapse; width: 100%; } td, th { padding: .35em .6em; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.checks { table-layout: fixed; } table.checks col.status { width: 5em; } table.checks col.id { width: 21em; } table.checks col.points { width: 6em; }
.PASS { color: #1a7f37; font-weight: 600; } .FAIL, .ERROR, .TIMEOUT { color: #c62828; font-weight: 600; }
pre { background: #f6f8fa; padding: .6em .8em; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .9em; }
.diagnosis { background: #fff4e5; border-left: 4px solid #f0a020; padding: .5em .8em; margin: .5em 0; }
.figures { display: flex; flex-wrap: wrap; gap: 2em; } figure { margin: 0; } figcaption { font-size: .9em; color: #444; margin-top: .3em; }
.bar { background: #4a7bd0; height: .8em; display: inline-block; vertical-align: middle; }
"""

SYMBOLS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}


def _page(title: str, body: list[str]) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _color(value: float | None) -> str:
    """White (0) to dark blue (1); grey for a missing or non-finite weight."""
    if value is None or not math.isfinite(value):
        return "#bdbdbd"
    level = min(max(value, 0.0), 1.0)
    red, green, blue = (round(255 + (end - 255) * level) for end in (20, 60, 150))
    return f"#{red:02x}{green:02x}{blue:02x}"


def heatmap(matrix: list[list[float | None]], label: str, cell: int = 44) -> str:
    """An SVG heatmap of attention weights, each cell labelled with its value."""
    rows, cols = len(matrix), max((len(row) for row in matrix), default=0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * cell + 2}" height="{rows * cell + 2}" '
        f'role="img" aria-label="{escape(label)}">'
    ]
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            x, y = 1 + j * cell, 1 + i * cell
            text = "nan" if value is None or not math.isfinite(value) else f"{value:.2f}"
            ink = "#fff" if value is not None and math.isfinite(value) and value > 0.55 else "#111"
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{_color(value)}" stroke="#fff"/>'
                f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" font-size="12" text-anchor="middle" fill="{ink}">{text}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _figure(matrix: Any, caption: str) -> str:
    if not matrix:
        return f"<figure><p class=\"muted\">no weights to show</p><figcaption>{escape(caption)}</figcaption></figure>"
    return f"<figure>{heatmap(matrix, caption)}<figcaption>{escape(caption)}</figcaption></figure>"


def student_page(report: Report) -> str:
    """One student's report as a self-contained HTML page: score, what went wrong, every
    check, and pictures of the attention weights beside the reference's."""
    body = [
        f"<h1>{escape(report.student)}</h1>",
        f'<p class="score">{escape(score_summary(report))}</p>',
        f'<p class="muted">{escape(report.submission)} &middot; grader {escape(report.grader_version)}'
        + (" &middot; self-check (not a grade of record)" if report.self_check else "")
        + "</p>",
        *_what_went_wrong(report),
        "<h2>Checks</h2>",
        _checks_table(report.checks),
    ]
    if report.source:
        body.append(f"<h2>How the file was read</h2><pre>{escape(chr(10).join(source_lines(report.source)))}</pre>")
    body += _pictures(report)
    return _page(f"{report.student}: {score_summary(report)}", body)


def notebook_fragment(report: Report) -> str:
    """A report as a notebook cell's output shows it (``%grade``): the points, the checks
    that failed first with their feedback and a cell to reproduce each, what went wrong,
    the attention weights, and the checks that passed folded away. A fragment, not a page:
    its style sheet applies inside its own ``div`` only, so the notebook around it keeps its own."""
    failed = [check for check in report.checks if check.status != "passed"]
    passed = [check for check in report.checks if check.status == "passed"]
    body = [f'<p class="score">{escape(score_summary(report))}</p>', *_what_went_wrong(report)]
    if failed:
        body += ["<h2>Checks that failed</h2>", _checks_table(failed)]
    body += _pictures(report)
    if passed:
        body.append(f"<details><summary>{len(passed)} checks passed</summary>{_checks_table(passed)}</details>")
    if report.source:
        body.append(
            f"<details><summary>How the code was read</summary><pre>{escape(chr(10).join(source_lines(report.source)))}</pre></details>"
        )
    return f'<div class="{FRAGMENT}"><style>{_scoped(STYLE, FRAGMENT)}</style>' + "\n".join(body) + "</div>"


FRAGMENT = "attention-grader-report"


def _scoped(style: str, scope: str) -> str:
    """``style`` applied inside elements of class ``scope`` only (``body`` is the element)."""
    rules = []
    for rule in style.replace("\n", " ").split("}"):
        if "{" not in rule:
            continue
        selectors, declarations = rule.split("{", 1)
        scoped = ", ".join(
            f".{scope}" if selector.strip() == "body" else f".{scope} {selector.strip()}" for selector in selectors.split(",")
        )
        rules.append(f"{scoped} {{{declarations}}}")
    return "\n".join(rules)


def _what_went_wrong(report: Report) -> list[str]:
    parts = [f"<p class=\"diagnosis\">{escape(report.error)}</p>"] if report.error else []
    if report.diagnoses:
        parts.append("<h2>What went wrong</h2>")
        parts += [f'<p class="diagnosis">{escape(d["message"])}</p>' for d in report.diagnoses]
    return parts


def _checks_table(checks: Iterable[Any]) -> str:
    rows = [
        '<table class="checks"><col class="status"><col class="id"><col class="points"><col>'
        "<tr><th></th><th>check</th><th>points</th><th>what it tests, and what broke</th></tr>"
    ]
    for check in checks:
        symbol = escape(SYMBOLS.get(check.status, check.status))
        detail = escape(check.description)
        if check.status != "passed" and check.feedback:
            detail += f"<br><b>{escape(check.feedback)}</b>"
        if check.status != "passed" and check.counterexample and check.counterexample.get("repro"):
            detail += f"<pre>{escape(check.counterexample['repro'])}</pre>"
        bonus = " (bonus)" if check.bonus else ""
        rows.append(
            f'<tr><td class="{symbol}">{symbol}</td><td><code>{escape(check.id)}</code></td>'
            f"<td>{check.points:g}/{check.max_points:g}{bonus}</td><td>{detail}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _pictures(report: Report) -> list[str]:
    if not report.pictures:
        return []
    parts = ["<h2>Attention weights A</h2>"]
    for name, caption in _captions(report).items():
        picture = report.pictures.get(name) or {}
        parts.append(f"<p>{escape(caption)}</p><div class=\"figures\">")
        parts.append(_figure(picture.get("student"), "this submission"))
        parts.append(_figure(picture.get("reference"), "the reference"))
        parts.append("</div>")
    return parts


def _assignment_title(reports: list[Report]) -> str:
    """The title of the assignment a batch graded (its first report's; the default's when none)."""
    name = reports[0].assignment if reports else assignments.DEFAULT
    return assignments.get(name).title if assignments.known(name) else name


def _captions(report: Report) -> dict[str, str]:
    """The pictures a report of its assignment has, in order, each with its sentence."""
    if not assignments.known(report.assignment):  # a report of an assignment this process does not know
        return {name: name for name in report.pictures}
    return {name: picture.caption for name, picture in assignments.get(report.assignment).pictures().items()}


def _histogram(scores: list[float], top: float, width: int = 480, height: int = 140) -> str:
    """Ten bars of equal width over 0..top (bonus points land in the last); counts on top."""
    bins, margin = 10, 16
    counts = Counter(min(int(score / top * bins), bins - 1) if top else 0 for score in scores)
    tallest = max(counts.values(), default=1)
    bar = width / bins
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + margin + 20}" '
        'role="img" aria-label="score histogram">'
    ]
    for index in range(bins):
        h = counts.get(index, 0) / tallest * height
        x, y = index * bar, margin + height - h
        parts.append(
            f'<rect x="{x + 2}" y="{y}" width="{bar - 4}" height="{h}" fill="#4a7bd0"/>'
            f'<text x="{x + bar / 2}" y="{margin + height + 14}" font-size="11" text-anchor="middle">'
            f"{index * top / bins:g}</text>"
        )
        if counts.get(index):
            parts.append(f'<text x="{x + bar / 2}" y="{y - 3}" font-size="11" text-anchor="middle">{counts[index]}</text>')
    parts.append("</svg>")
    return "".join(parts)


def class_page(
    reports: list[Report], links: dict[str, str], similarity: tuple[dict[str, Any], dict[str, str]] | None = None
) -> str:
    """A class's batch: score histogram, pass rate per check, how often each mistake occurs,
    a link (``links[student]``) to each student's page, and with ``similarity`` (what
    grader.similarity.of_batch returns) the pairs that look copied."""
    scores = [report.score for report in reports]
    top = max((report.max_score for report in reports), default=0.0)
    title = f"{_assignment_title(reports)}: class report"
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p class=\"score\">{len(reports)} submissions &middot; mean {statistics.fmean(scores) if scores else 0:.1f}"
        f" &middot; median {statistics.median(scores) if scores else 0:g} of {top:g}</p>",
        "<h2>Scores</h2>",
        _histogram(scores, top),
        "<h2>Pass rate per check</h2><table><tr><th>check</th><th>passed</th><th></th></tr>",
    ]
    check_ids = [check.id for check in reports[0].checks] if reports else []
    for check_id in check_ids:
        passed = sum(1 for r in reports for c in r.checks if c.id == check_id and c.status == "passed")
        rate = passed / len(reports)
        body.append(
            f"<tr><td><code>{escape(check_id)}</code></td><td>{passed}/{len(reports)}</td>"
            f'<td><span class="bar" style="width:{rate * 12:.2f}em"></span> {rate:.0%}</td></tr>'
        )
    body.append("</table><h2>Mistakes</h2>")
    # What the probes showed of an unknown mistake, or of an unfinished function, is not a mistake to count.
    mistakes = Counter(d["id"] for report in reports for d in report.diagnoses if d["id"] not in NOT_MISTAKES)
    if mistakes:
        body.append("<table><tr><th>mistake</th><th>submissions</th></tr>")
        body += [f"<tr><td><code>{escape(m)}</code></td><td>{n}</td></tr>" for m, n in mistakes.most_common()]
        body.append("</table>")
    else:
        body.append("<p class=\"muted\">No known mistake was diagnosed.</p>")
    body.append("<h2>Students</h2><table><tr><th>student</th><th>score</th><th>status</th></tr>")
    for report in sorted(reports, key=lambda r: r.student):
        link = links.get(report.student)
        name = f'<a href="{escape(link)}">{escape(report.student)}</a>' if link else escape(report.student)
        body.append(f"<tr><td>{name}</td><td>{escape(score_summary(report))}</td><td>{escape(report.status)}</td></tr>")
    body.append("</table>")
    if similarity is not None:
        body += _similarity_section(*similarity)
    return _page(title, body)


def _similarity_section(found: dict[str, Any], code: dict[str, str]) -> list[str]:
    """The pairs of grader.similarity, each with its shared fragments side by side."""
    body = [
        "<h2>Submissions that look alike</h2>",
        f"<p class=\"muted\">A reason to look, never proof (pairs scoring at least {found['threshold']:g}; "
        "the lesson's code and what much of the class shares are left out; two students can make the same rare "
        "mistake on their own, so look at the code before concluding). Grades are unchanged.</p>",
    ]
    if not found["pairs"]:
        body.append("<p class=\"muted\">No pair that shares code of its own scored above the threshold.</p>")
    for group in found["groups"]:
        body.append(f"<p class=\"diagnosis\">All alike: {escape(', '.join(group))}</p>")
    for pair in found["pairs"]:
        a, b = pair["a"], pair["b"]
        checks, named = pair["behaviour"]["checks"], pair["behaviour"].get("mistakes", [])
        body.append(
            f"<h3>{escape(a)} &amp; {escape(b)}: {pair['score']:.2f} ({escape(pair['signal'])})</h3>"
            f"<p>code {pair['code']['score']:.2f}, behaviour {pair['behaviour']['score']:.2f}"
            + (f": the same wrong answers in <code>{escape(', '.join(checks))}</code>" if checks else "")
            + (f"; both make <code>{escape(', '.join(named))}</code>, which students also make on their own" if named else "")
            + "</p>"
        )
        for fragment in pair["code"]["fragments"]:
            body.append("<div class=\"figures\">")
            for side, student in (("a", a), ("b", b)):
                first, last = fragment[side]
                lines = code.get(student, "").splitlines()[first - 1 : last]
                body.append(
                    f"<figure><pre>{escape(chr(10).join(lines))}</pre>"
                    f"<figcaption>{escape(student)}, lines {first}-{last}</figcaption></figure>"
                )
            body.append("</div>")
    return body + _alike_answers_section(found.get("shared_wrong_answers", []))


def _alike_answers_section(alike: list[dict[str, Any]]) -> list[str]:
    """The pairs that share rare wrong answers but no code: listed apart, in words that do not accuse."""
    if not alike:
        return []
    body = [
        "<h3>The same rare wrong answers, little or no shared code</h3>",
        "<p class=\"muted\">These pairs share little or no code of their own; they give the same wrong answers that few "
        "others in the class give. Most often that is two students who made the same mistake on their own: it is "
        "not evidence of copying.</p>",
        "<ul>",
    ]
    for pair in alike:
        checks = ", ".join(pair["behaviour"]["checks"])
        body.append(f"<li>{escape(pair['a'])} &amp; {escape(pair['b'])}: <code>{escape(checks)}</code></li>")
    return body + ["</ul>"]


INDEX_PAGE = "index.html"  # the class page, beside OUT/<id>.html


def write_pages(
    reports: Iterable[Report], out: Path, similarity: tuple[dict[str, Any], dict[str, str]] | None = None
) -> None:
    """``out/<student>.html`` for each report and the class page ``out/index.html`` (with
    ``similarity``'s pairs, see :func:`class_page`); ``reports`` are taken one at a time
    (the class page needs no report's details)."""
    links = {}
    summaries = []
    for report in reports:
        write_atomic(out / f"{report.student}.html", student_page(report))
        links[report.student] = quote(f"{report.student}.html")
        summaries.append(without_details(report))
    write_atomic(out / INDEX_PAGE, class_page(summaries, links, similarity))
