"""The reference, the template, correct heads in many styles, and the seeded buggy heads.

``tests/heads/second_set/`` holds buggy heads written in students' styles by someone who
had not seen the diagnoser, one known mistake each in another spelling, two at once, or
one with no id (``# diagnosis: none``): they measure whether the diagnoses generalise
(benchmarks/diagnosis_recall.py prints the figures), and none may be told a mistake it
does not make.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import HEADS, REFERENCE, TEMPLATE, expectation, head_id
from grader.assignments.attention_head.mistakes import MISTAKES
from grader.rubric import available_check_ids

BUGGY = sorted(HEADS.glob("buggy/*.py"))
SECOND_SET = sorted(HEADS.glob("second_set/*.py"))
WILD = sorted(HEADS.glob("wild/*.py"))
CORRECT = sorted(HEADS.glob("correct/*.py")) + sorted(HEADS.glob("wild/correct/*.py"))
# Mistakes that compute the very same function as a known one, so no answer can tell them
# apart: the head is told the known one, whose message covers both.
SAME_FUNCTION = {"scale_after_exp": "missing_scale"}


def test_reference_earns_full_marks_and_the_bonus(graded_heads, rubric):
    report = graded_heads[head_id(REFERENCE)]
    assert report.status == "graded"
    assert {c.id: c.feedback for c in report.checks if c.status != "passed"} == {}
    assert report.score == rubric.max_score + sum(c.points for c in rubric.checks if c.bonus)


def test_template_earns_zero_and_says_what_is_missing(graded_heads):
    report = graded_heads[head_id(TEMPLATE)]
    assert report.status == "graded"
    assert report.score == 0
    for check in report.checks:
        assert check.status == "error"
        assert check.kind == "not_implemented"
        assert "is not written yet" in check.feedback


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_correct_heads_lose_no_points(graded_heads, rubric, path: Path):
    report = graded_heads[head_id(path)]
    lost = {c.id: c.feedback for c in report.checks if c.status != "passed" and not c.bonus}
    assert lost == {}
    assert report.score >= rubric.max_score
    assert report.diagnoses == []


@pytest.mark.parametrize("path", BUGGY + SECOND_SET + WILD, ids=[p.stem for p in BUGGY + SECOND_SET + WILD])
def test_buggy_heads_fail_the_check_that_names_their_mistake(graded_heads, rubric, path: Path):
    declared = expectation(path)
    assert declared.must_fail, f"{path.name} names no check"
    assert set(declared.must_fail) <= available_check_ids()
    report = graded_heads[head_id(path)]
    assert declared.violations(report) == {}
    assert sum(c.points for c in report.checks if not c.bonus) < rubric.max_score
    for check in report.checks:
        if check.status != "passed":
            assert check.feedback, f"{check.id} failed without feedback"


def test_every_failed_wrong_answer_carries_a_counterexample(graded_heads):
    for report in graded_heads.values():
        for check in report.checks:
            if check.status == "failed" and check.kind == "wrong_answer":
                assert check.counterexample is not None, (report.student, check.id)
                assert "from attention import" in check.counterexample["repro"]


@pytest.mark.parametrize("path", BUGGY, ids=[p.stem for p in BUGGY])
def test_buggy_heads_are_told_their_mistake_by_name(graded_heads, path: Path):
    declared = expectation(path).diagnoses
    assert declared, f"{path.name} declares no '# diagnosis:' line"
    report = graded_heads[head_id(path)]
    assert [diagnosis["id"] for diagnosis in report.diagnoses] == list(declared)
    for diagnosis in report.diagnoses:
        assert "section" in diagnosis["message"] or "lesson" in diagnosis["message"].lower()


@pytest.mark.parametrize("path", SECOND_SET, ids=[p.stem for p in SECOND_SET])
def test_heads_written_apart_are_told_exactly_their_mistakes(graded_heads, path: Path):
    declared = set(expectation(path).diagnoses) - {"none"}
    report = graded_heads[head_id(path)]
    assert {diagnosis["id"] for diagnosis in report.diagnoses if diagnosis["id"] != "observed"} == declared


def test_no_head_is_told_a_mistake_it_does_not_declare(graded_heads):
    """Across every head graded together: correct ones are told nothing, buggy ones nothing
    beyond what they declare (what the probes showed is not a mistake's name)."""
    for path in BUGGY + SECOND_SET + CORRECT:
        declared = set(expectation(path).diagnoses) if path not in CORRECT else set()
        told = {d["id"] for d in graded_heads[head_id(path)].diagnoses if d["id"] != "observed"}
        assert told <= declared, path.name


def test_every_known_mistake_has_a_buggy_head_that_shows_it():
    declared = {mistake for path in BUGGY for mistake in expectation(path).diagnoses}
    assert declared == {mistake.id for mistake in MISTAKES}


def test_the_reference_and_the_template_are_told_no_mistake(graded_heads):
    assert graded_heads[head_id(REFERENCE)].diagnoses == []
    assert graded_heads[head_id(TEMPLATE)].diagnoses == []


def _told(report) -> set[str]:
    return {diagnosis["id"] for diagnosis in report.diagnoses if diagnosis["id"] != "observed"}


def test_no_head_is_told_a_mistake_it_does_not_make(graded_heads):
    """The second set and the wild heads declare every mistake they make (the wild ones two
    to four each, across functions): none may be told another."""
    wrong = {}
    for path in SECOND_SET + WILD:
        declared = set(expectation(path).diagnoses) - {"none"}
        allowed = declared | {SAME_FUNCTION[mistake] for mistake in declared if mistake in SAME_FUNCTION}
        extra = _told(graded_heads[head_id(path)]) - allowed
        if extra:
            wrong[path.name] = sorted(extra)
    assert wrong == {}


def test_nine_in_ten_of_the_wild_heads_mistakes_are_named(graded_heads):
    """Heads with several mistakes spread over the functions, in the styles of public code:
    each function is read against the head's own helpers, so a wrong softmax does not hide
    attention's mistakes. The figure README quotes."""
    made = named = 0
    for path in WILD:
        declared = set(expectation(path).diagnoses)
        told = _told(graded_heads[head_id(path)])
        made += len(declared)
        named += sum(1 for mistake in declared if mistake in told or SAME_FUNCTION.get(mistake) in told)
    assert made >= 70
    assert named / made >= 0.9, f"{named}/{made}"
