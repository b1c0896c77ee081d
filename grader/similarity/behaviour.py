"""The behaviour signal: the same wrong answers, on the same inputs, in two reports.

Checks draw the same inputs for every submission, so two heads with the same bug fail the
same checks with the same counterexample, byte for byte (its input, what was expected,
what came back). Each failed check's (id, feedback, counterexample) is one behaviour, read
from the reports: nothing is called again. A behaviour weighs more the rarer it is in the
batch; one that more than a third of the class shows weighs nothing (a common mistake is
no signal), nor does a failed bonus check. A mistake the grader's catalogue names counts
like any other: students make it on their own, but one that few of the class make is as
rare a thing to share as an odd bug, and a copy whose only distinctive trait is such a
mistake is found by it. Two reports' score is that of grader.similarity.rarity.
"""

from __future__ import annotations

import json

from grader.report import NO_REPRO_KINDS, NOT_MISTAKES, Report
from grader.similarity.rarity import Shared, shared_rare

COMMON_SHARE = 1 / 3


def behaviours(report: Report) -> set[str]:
    """What ``report``'s failed checks show: one key per check that did not pass. Bonus
    checks show nothing (failing one is an extension not attempted, not a mistake: the
    lesson's own code fails them), nor do checks the submission did not get to (an
    import failure)."""
    found = set()
    for check in report.checks:
        if check.status == "passed" or check.bonus or check.kind in NO_REPRO_KINDS:
            continue
        found.add(json.dumps([check.id, check.feedback, check.counterexample], sort_keys=True))
    return found


def mistakes(report: Report) -> set[str]:
    """The catalogue's mistakes ``report``'s diagnoses name."""
    return {diagnosis["id"] for diagnosis in report.diagnoses if diagnosis["id"] not in NOT_MISTAKES}


def behaviour_matches(reports: dict[str, set[str]]) -> Shared:
    """The score of every pair of ``reports`` (id -> behaviours) sharing a behaviour that
    is not common (grader.similarity.rarity), and the behaviours a pair shares (see
    :func:`checks`)."""
    return shared_rare(reports, COMMON_SHARE)


def checks(shared: list[str]) -> list[str]:
    """The checks that ``shared`` behaviours come from."""
    return sorted(json.loads(key)[0] for key in shared)
