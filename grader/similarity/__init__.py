"""Which submissions of a batch look copied: by their code and by their behaviour.

``grader grade --similarity`` writes ``OUT/similarity.json``::

    {"schema_version": 2, "threshold": 0.5,
     "pairs": [{"a", "b", "score", "code": {"score", "fragments": [{"a": [first, last], "b": [...]}]},
                "behaviour": {"score", "checks": [check ids], "mistakes": [ids]}, "signal": "code" | "both"}],
     "groups": [[ids]],
     "shared_wrong_answers": [{"a", "b", "code_score", "behaviour": {...}}]}

Two signals, each from 0 to 1 (grader.similarity.code: fingerprints of what students
wrote themselves, the lesson's code, the template, the reference and what most of the
class shares left out; grader.similarity.behaviour: the same rare wrong answers on the
same inputs). They combine as ``1 - (1 - code) * (1 - behaviour / 2)``: shared rare wrong
answers raise the score of a pair that shares code of its own, so a disguised copy that
kept a rare mistake stands out. A pair is listed in ``pairs`` (and ``groups``) only on
evidence in the code, a code score of at least :data:`CODE_EVIDENCE` (or the threshold, if
lower): two students who share little or no code of their own but give the same rare wrong
answers are most often two students who made the same mistake on their own, so such pairs
go to ``shared_wrong_answers``, worded as that, never in ``pairs``. A pair is a
reason for a person to look, never proof, and nothing here changes a grade or reaches a
student.
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

SCHEMA_VERSION = 2
DEFAULT_THRESHOLD = 0.5
# The least code score that is evidence in the code: independent heads that share an idiom
# reach 0.17 to 0.36 on the maintainers' set (benchmarks/similarity_quality.py), as much as
# a disguised copy of a head with almost no code of its own; below it, shared rare wrong
# answers cannot tell the two apart, so such a pair is not listed as a copy.
CODE_EVIDENCE = 0.3


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
    pairs, alike_answers = [], []
    for a, b in sorted(by_code.scores.keys() | by_behaviour.scores.keys()):
        code_score, behaviour_score = by_code.scores.get((a, b), 0.0), by_behaviour.scores.get((a, b), 0.0)
        score = combined(code_score, behaviour_score)
        if score < threshold:
            continue
        behaviour = {
            "score": behaviour_score,
            "checks": checks(by_behaviour.keys(a, b)) if behaviour_score else [],
            # Mistakes of the catalogue both make: students make these on their own too.
            "mistakes": sorted(named[a] & named[b]) if behaviour_score else [],
        }
        if code_score < CODE_EVIDENCE and code_score < threshold:
            if behaviour_score:
                alike_answers.append({"a": a, "b": b, "code_score": code_score, "behaviour": behaviour})
            continue
        shared = by_code.keys(a, b)
        pairs.append({
            "a": a, "b": b, "score": score, "signal": "both" if behaviour_score else "code",
            "code": {"score": code_score, "fragments": fragments(files[a], files[b], shared)},
            "behaviour": behaviour,
        })
    pairs.sort(key=lambda pair: (-pair["score"], pair["a"], pair["b"]))
    alike_answers.sort(key=lambda pair: (-pair["behaviour"]["score"], pair["a"], pair["b"]))
    return {
        "schema_version": SCHEMA_VERSION, "threshold": threshold, "pairs": pairs, "groups": _groups(pairs),
        "shared_wrong_answers": alike_answers,
    }


def similarity_json(found: dict[str, Any]) -> str:
    """``found`` (see :func:`analyse`) as ``similarity.json``'s text: a pair, or a group,
    per line. Indenting the whole would take the standard library's pure-Python encoder,
    a second for the thousands of pairs of a big batch of copies."""

    def listed(items: list[Any]) -> str:
        return "[" + ",".join(f"\n  {json_text(item)}" for item in items) + ("\n ]" if items else "]")

    lists = ("pairs", "groups", "shared_wrong_answers")
    head = {key: value for key, value in found.items() if key not in lists}
    return json_text(head)[:-1] + "".join(f',\n "{key}": {listed(found[key])}' for key in lists) + "}\n"


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
