"""Which submissions of a batch look copied: by their code and by their behaviour.

``grader grade --similarity`` writes ``OUT/similarity.json``::

    {"schema_version": 1, "threshold": 0.5,
     "pairs": [{"a", "b", "score", "code": {"score", "fragments": [{"a": [first, last], "b": [...]}]},
                "behaviour": {"score", "checks": [check ids]}, "signal": "code" | "behaviour" | "both"}],
     "groups": [[ids]]}

Two signals, each from 0 to 1 (grader.similarity.code: fingerprints of what students
wrote themselves, the lesson's code, the template, the reference and what most of the
class shares left out; grader.similarity.behaviour: the same rare wrong answers on the
same inputs). They combine as ``1 - (1 - code) * (1 - behaviour / 2)``: shared code alone
can reach any score, a shared rare mistake alone reaches at most 0.5, and both together more
than either. Pairs at or above the threshold are listed, highest first; ``groups`` are
three or more submissions every two of which are listed. A pair is a reason for a person
to look, never proof, and nothing here changes a grade or reaches a student.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from grader import assignments, sources
from grader.assignments import Assignment
from grader.errors import UsageError
from grader.report import Report
from grader.report.safe_text import json_text
from grader.similarity.behaviour import behaviour_matches, behaviours, checks, mistakes
from grader.similarity.code import boilerplate, code_matches, fingerprints, fragments
from grader.sources.files import SubmissionFile

SCHEMA_VERSION = 1
DEFAULT_THRESHOLD = 0.5


def given_code(assignment: Assignment) -> list[str]:
    """The code every student of ``assignment`` starts from: the lesson's, the template,
    the reference."""
    files = [assignment.path(assignment.reference), assignment.path(assignment.template[assignment.handout])]
    return [assignment.lesson_code] + [path.read_text(encoding="utf-8") for path in files]


def combined(code: float, behaviour: float) -> float:
    """The documented rule (see the module docstring)."""
    return round(1 - (1 - code) * (1 - behaviour / 2), 3)


def analyse(
    submissions: Iterable[tuple[str, str, Report | None]],
    threshold: float = DEFAULT_THRESHOLD,
    assignment: Assignment | None = None,
) -> dict[str, Any]:
    """``similarity.json``'s content for ``(student, code as graded, report)`` triples
    (a report of None: code alone) of ``assignment`` (default: the default one)."""
    files, shown, named = {}, {}, {}
    for student, code, report in submissions:
        files[student] = fingerprints(code)
        shown[student] = behaviours(report) if report is not None else set()
        named[student] = mistakes(report) if report is not None else set()
    by_code = code_matches(files, boilerplate(given_code(assignment or assignments.get())))
    by_behaviour = behaviour_matches(shown)
    pairs = []
    for a, b in sorted(by_code.scores.keys() | by_behaviour.scores.keys()):
        code_score, behaviour_score = by_code.scores.get((a, b), 0.0), by_behaviour.scores.get((a, b), 0.0)
        score = combined(code_score, behaviour_score)
        if score < threshold:
            continue
        signal = "both" if code_score and behaviour_score else "code" if code_score else "behaviour"
        shared = by_code.keys(a, b) if code_score else []
        pairs.append({
            "a": a, "b": b, "score": score, "signal": signal,
            "code": {"score": code_score, "fragments": fragments(files[a], files[b], shared) if shared else []},
            "behaviour": {
                "score": behaviour_score,
                "checks": checks(by_behaviour.keys(a, b)) if behaviour_score else [],
                # Mistakes of the catalogue both make: students make these on their own too.
                "mistakes": sorted(named[a] & named[b]) if behaviour_score else [],
            },
        })
    pairs.sort(key=lambda pair: (-pair["score"], pair["a"], pair["b"]))
    return {"schema_version": SCHEMA_VERSION, "threshold": threshold, "pairs": pairs, "groups": _groups(pairs)}


def similarity_json(found: dict[str, Any]) -> str:
    """``found`` (see :func:`analyse`) as ``similarity.json``'s text: a pair, or a group,
    per line. Indenting the whole would take the standard library's pure-Python encoder,
    a second for the thousands of pairs of a big batch of copies."""

    def listed(items: list[Any]) -> str:
        return "[" + ",".join(f"\n  {json_text(item)}" for item in items) + ("\n ]" if items else "]")

    head = {key: value for key, value in found.items() if key not in {"pairs", "groups"}}
    return f'{json_text(head)[:-1]},\n "pairs": {listed(found["pairs"])},\n "groups": {listed(found["groups"])}}}\n'


def of_batch(
    reports: Iterable[Report], files: Mapping[str, SubmissionFile], threshold: float = DEFAULT_THRESHOLD
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`analyse` for a graded batch, and the code of each submission it lists (for
    the class page). Each report's code is read again from its submission file (``files``,
    by id) the way the grader read it (a notebook: its selected cells); a file that is
    gone, changed since, or could not be graded is left out."""
    triples = []
    for report in reports:
        code = code_of(report, files.get(report.student))
        if code is not None:
            triples.append((report.student, code, report))
    assignment = assignments.get(triples[0][2].assignment) if triples else None
    found = analyse(triples, threshold, assignment)
    listed = {pair[side] for pair in found["pairs"] for side in ("a", "b")}
    return found, {student: code for student, code, _ in triples if student in listed}


def code_of(report: Report, file: SubmissionFile | None) -> str | None:
    """The code ``report`` graded from ``file``, as the grader ran it; None if it cannot be
    read so (read as grading read it: no link followed below the batch's folder)."""
    if file is None:
        return None
    try:
        content = sources.read_bytes(file.path, within=file.folder)
        if hashlib.sha256(content).hexdigest() != report.submission_sha256:
            return None
        suffix = sources.NOTEBOOK_SUFFIX if sources.is_notebook_name(file.path.suffix) else ".py"
        assignment = assignments.get(report.assignment)
        return sources.parse(content, suffix=suffix, assignment=assignment).code.decode("utf-8", "replace")
    except (UsageError, sources.Unusable, OSError):
        return None


def _groups(pairs: list[dict[str, Any]]) -> list[list[str]]:
    """Connected sets of three or more in which every two are a listed pair."""
    linked = {(pair["a"], pair["b"]) for pair in pairs}
    neighbours: dict[str, set[str]] = {}
    for a, b in linked:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    seen: set[str] = set()
    groups = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        component, frontier = set(), [start]
        while frontier:
            node = frontier.pop()
            if node not in component:
                component.add(node)
                frontier.extend(neighbours[node] - component)
        seen |= component
        members = sorted(component)
        if len(members) >= 3 and all(pair in linked for pair in itertools.combinations(members, 2)):
            groups.append(members)
    return groups
