"""--similarity: disguised copies are listed with the fragments they share, independent
heads and copies of the lesson are not, a shared rare wrong answer counts (a named mistake
too, by how rare it is), and grades never change."""

from __future__ import annotations

import dataclasses
import json
import shutil
import types

import numpy as np

import pytest
from click.testing import CliRunner

from conftest import HEADS, REFERENCE, VARIANTS
from disguises import DISGUISES, transplanted
from grader.cli import cli
from grader.report import CheckEntry, Report
from grader.similarity import analyse, combined
from grader.similarity.behaviour import behaviours

CORRECT = sorted((HEADS / "correct").glob("*.py"))
LOOPS = HEADS / "correct" / "loops.py"  # much code of its own
SECOND_SET = sorted((HEADS / "second_set").glob("*.py"))


def _listed(files: dict[str, str]) -> dict[tuple[str, str], dict]:
    return {(pair["a"], pair["b"]): pair for pair in analyse([(name, code, None) for name, code in files.items()])["pairs"]}


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_a_disguised_copy_is_listed_with_its_fragments(disguise):
    files = {path.stem: path.read_text() for path in CORRECT}
    files["copy"] = DISGUISES[disguise](files["loops"])
    listed = _listed(files)
    pair = listed[("copy", "loops")]
    assert pair["signal"] == "code" and pair["score"] >= 0.5
    length = {"copy": len(files["copy"].splitlines()), "loops": len(files["loops"].splitlines())}
    assert pair["code"]["fragments"]
    for fragment in pair["code"]["fragments"]:
        assert 1 <= fragment["a"][0] <= fragment["a"][1] <= length["copy"]
        assert 1 <= fragment["b"][0] <= fragment["b"][1] <= length["loops"]
    for before, after in zip(pair["code"]["fragments"], pair["code"]["fragments"][1:]):
        runs_on = after["a"][0] <= before["a"][1] + 1 and before["b"][0] - 1 <= after["b"][0] <= before["b"][1] + 1
        assert not runs_on  # such fragments are one
    assert set(listed) == {("copy", "loops")}  # and the independent heads are not


def test_one_function_copied_into_own_work_is_listed():
    files = {path.stem: path.read_text() for path in SECOND_SET[:20]}
    files["loops"] = LOOPS.read_text()
    files["copier"] = transplanted(LOOPS.read_text(), (HEADS / "correct" / "einsum.py").read_text())
    assert ("copier", "loops") in _listed(files)


def test_the_lessons_code_and_common_fragments_are_no_signal():
    files = {f"lesson{number}": REFERENCE.read_text() for number in range(4)}
    files |= {path.stem: path.read_text() for path in SECOND_SET}
    assert _listed(files) == {}


def test_the_lesson_reordered_or_reformatted_is_no_signal():
    # Two near-lesson heads with their functions in one other order share that order
    # only; two that ran a formatter on the lesson share its rewriting only.
    files = {path.stem: path.read_text() for path in SECOND_SET}
    for name in ("default_causal", "softmax_no_max_shift", "returns_swapped"):
        head = (VARIANTS / f"{name}.py").read_text()
        files[f"{name}_reordered"] = DISGUISES["reordered"](head)
        files[f"{name}_reformatted"] = DISGUISES["reformatted"](head)
    listed = _listed(files)
    assert not [pair for pair in listed if pair[0].split("_re")[0] != pair[1].split("_re")[0]]


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_a_disguise_keeps_what_the_head_computes(disguise):
    # The quality benchmark's copies must be copies a student would hand in: working ones.
    rng = np.random.default_rng(3)
    X, Wq, Wk, Wv = rng.normal(size=(5, 6)), rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    for head in (LOOPS, VARIANTS / "causal_mask_not_bool.py", HEADS / "second_set" / "scales_queries_in_place.py"):
        original, copy = types.SimpleNamespace(), types.SimpleNamespace()
        exec(compile(head.read_text(), str(head), "exec"), original.__dict__)
        exec(compile(DISGUISES[disguise](head.read_text()), "copy", "exec"), copy.__dict__)
        for module in (original, copy):
            module.answers = [module.softmax(X, axis=0), module.causal_mask(5),
                              *module.self_attention(X, Wq, Wk, Wv, mask=module.causal_mask(5))]
        for mine, theirs in zip(original.answers, copy.answers, strict=True):
            np.testing.assert_array_equal(mine, theirs)


def _report(checks: list[CheckEntry], diagnoses: list[str]) -> Report:
    return Report(
        student="s", submission="s.py", submission_sha256="0", score=0.0, max_score=100.0, status="graded", error=None,
        checks=checks, rubric={}, grader_version="0", duration_s=0.0, assignment="attention_head",
        diagnoses=[{"id": identifier, "message": identifier} for identifier in diagnoses],
    )


FAILED = CheckEntry(id="attention.scaling", description="", status="failed", points=0.0, max_points=5.0,
                    visibility="visible", bonus=False, kind="wrong_answer", feedback="A is wrong", counterexample={"Q": [[1.0]]})


def test_behaviours_leave_out_bonus_checks_and_count_named_mistakes():
    bonus = dataclasses.replace(FAILED, id="extension.batched", bonus=True)
    assert len(behaviours(_report([FAILED, bonus], []))) == 1  # a bonus check not attempted is no mistake
    assert len(behaviours(_report([FAILED], ["missing_scale"]))) == 1  # a catalogue mistake counts as any other


def test_a_named_mistake_counts_by_how_rare_it_is():
    """Two reports that share a catalogue mistake few of the class make score as two that share
    an odd bug; one that more than a third of the class makes weighs nothing."""
    wrong = dataclasses.replace(FAILED, feedback="softmax subtracts the mean", counterexample={"x": [[1000.0, 0.0]]})
    rare = [_report([wrong], ["softmax_subtracts_mean"]) for _ in range(2)] + [_report([], []) for _ in range(10)]
    common = [_report([wrong], ["softmax_subtracts_mean"]) for _ in range(5)] + [_report([], []) for _ in range(7)]
    for reports, listed in ((rare, True), (common, False)):
        found = analyse([(f"s{i}", "", report) for i, report in enumerate(reports)])
        assert bool([pair for pair in found["shared_wrong_answers"] if pair["behaviour"]["score"] > 0]) == listed
        assert found["pairs"] == []  # no code of their own in common: never listed as a pair


def test_a_pair_is_listed_only_on_evidence_in_its_code():
    """The same rare wrong answers raise the score of a pair that shares code of its own; a pair that
    shares only wrong answers goes to shared_wrong_answers, never to pairs or groups."""
    wrong = dataclasses.replace(FAILED, feedback="softmax subtracts the mean", counterexample={"x": [[1000.0, 0.0]]})
    own = "\n".join(f"def helper_{i}(table, key):\n    return sorted(table.items())[key % {i + 3}][1] * {i}" for i in range(30))
    other = dataclasses.replace(wrong, id="softmax.large_logits")
    triples = [("copy_a", own, _report([other], [])), ("copy_b", own, _report([other], []))]
    triples += [(f"alike_{i}", "", _report([wrong], [])) for i in range(2)]
    triples += [(f"s{i}", "", _report([], [])) for i in range(12)]
    found = analyse(triples)
    assert [(pair["a"], pair["b"], pair["signal"]) for pair in found["pairs"]] == [("copy_a", "copy_b", "both")]
    alike = {(pair["a"], pair["b"]) for pair in found["shared_wrong_answers"]}
    assert ("alike_0", "alike_1") in alike and ("copy_a", "copy_b") not in alike
    assert found["groups"] == []


def test_the_combined_score_follows_its_rule():
    assert combined(0.0, 1.0) == 0.5 and combined(0.6, 0.0) == 0.6 and combined(0.5, 0.5) == 0.625


def test_a_batch_lists_copies_by_code_and_by_behaviour_and_keeps_its_grades(tmp_path, isolation):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    odd = HEADS / "second_set" / "temperature_half.py"  # a mistake the catalogue does not name
    named = VARIANTS / "mask_inverted.py"  # one it names, rare in this class: counted as rare
    for number in range(3):
        shutil.copyfile(REFERENCE, submissions / f"honest{number}.py")
    shutil.copyfile(LOOPS, submissions / "own.py")
    (submissions / "renamed.py").write_text(DISGUISES["renamed"](LOOPS.read_text()))
    shutil.copyfile(odd, submissions / "odd_a.py")
    shutil.copyfile(odd, submissions / "odd_b.py")
    shutil.copyfile(named, submissions / "named_a.py")
    # The same mistake in code of its own, by another hand: the same wrong answers, no shared code.
    shutil.copyfile(HEADS / "second_set" / "putmask_hides_allowed.py", submissions / "named_b.py")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["grade", str(submissions), "--out", str(out), "--sandbox", isolation, "--similarity", "--html"]
    )
    assert result.exit_code == 0, result.output
    found = json.loads((out / "similarity.json").read_text())
    assert found["schema_version"] == 2 and found["threshold"] == 0.5
    listed = {(pair["a"], pair["b"]): pair for pair in found["pairs"]}
    assert set(listed) == {("own", "renamed"), ("odd_a", "odd_b")}
    assert listed[("odd_a", "odd_b")]["signal"] == "both"  # a copy whose rare wrong answers raise its score
    assert listed[("odd_a", "odd_b")]["behaviour"]["score"] == 1.0 and listed[("odd_a", "odd_b")]["behaviour"]["checks"]
    assert listed[("odd_a", "odd_b")]["behaviour"]["mistakes"] == []
    # Two hands that make the same rare mistake share no code: listed apart, never as a pair.
    alike = {(pair["a"], pair["b"]): pair for pair in found["shared_wrong_answers"]}
    assert set(alike) == {("named_a", "named_b")}
    assert alike[("named_a", "named_b")]["behaviour"]["mistakes"] == ["mask_inverted"]
    assert found["groups"] == []
    page = (out / "index.html").read_text()
    assert "Submissions that look alike" in page and "own &amp; renamed" in page and "odd_a &amp; odd_b" in page
    assert "The same rare wrong answers, little or no shared code" in page and "named_a &amp; named_b" in page
    assert "it is not evidence of copying" in page
    first = listed[("own", "renamed")]["code"]["fragments"][0]["a"]
    assert f"own, lines {first[0]}-{first[1]}" in page  # the fragment shown beside its copy
    assert "honest0 &amp;" not in page
    again = tmp_path / "again"
    assert CliRunner().invoke(cli, ["grade", str(submissions), "--out", str(again), "--sandbox", isolation]).exit_code == 0
    for name in ("own", "renamed", "odd_a", "named_a", "honest0"):
        first, second = (json.loads((folder / f"{name}.json").read_text()) for folder in (out, again))
        first.pop("duration_s"), second.pop("duration_s")
        first.pop("signature"), second.pop("signature")  # each reports folder has its own key
        assert first == second
