"""The second assignment, multi-head attention: its heads, and every route that selects it.

``tests/multi_head/heads/`` holds correct heads in several styles and buggy ones with
``# must-fail:`` and ``# diagnosis:`` lines, as ``tests/heads/`` does for the first.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import MULTI_HEAD_VARIANTS, ROOT, TESTS, expectation, head_id

from grader import assignments
from grader.assignments.rubric import Rubric, available_check_ids, load_rubric
from grader.batch import grade_folder, read_in_full
from grader.cli import cli
from grader.errors import RubricError
from grader.report import NOT_MISTAKES, Report
from grader.resources import project_file
from grader.sandbox import Limits

ASSIGNMENT = assignments.get("multi_head")
HEADS = TESTS / "multi_head" / "heads"
REFERENCE = ROOT / ASSIGNMENT.reference
TEMPLATE = project_file(ASSIGNMENT.template[ASSIGNMENT.handout])
CORRECT = sorted(HEADS.glob("correct/*.py"))
BUGGY = sorted(MULTI_HEAD_VARIANTS.glob("*.py"))
# Written blind to the grader, in public code's styles, 1 to 3 mistakes each across functions
# (benchmarks/multi_head_heldout/ holds the other half, kept aside as the honest measure).
SECOND_SET = sorted(HEADS.glob("second_set/*.py"))
DECLARED = re.compile(r"^# diagnosis:(.*)$", re.MULTILINE)  # the second set declares no checks, only its mistakes


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric(project_file(ASSIGNMENT.rubric))


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, rubric: Rubric, isolation: str) -> dict[str, Report]:
    """Every multi-head head graded in one batch, each in a folder of its own as
    ``<id>/multi_head.py`` (the handout's name), with the attention head's reference beside them."""
    folder = tmp_path_factory.mktemp("multi_heads")
    for path in [*CORRECT, *BUGGY, *SECOND_SET, REFERENCE, TEMPLATE, ROOT / "reference" / "attention.py"]:
        (folder / head_id(path)).mkdir()
        shutil.copyfile(path, folder / head_id(path) / "multi_head.py")
    out = tmp_path_factory.mktemp("multi_head_reports")
    reports = grade_folder(folder, out, rubric, Limits(isolation=isolation), jobs=os.cpu_count() or 1)
    return {report.student: report for report in read_in_full(out, reports)}


def test_the_reference_earns_full_marks(graded, rubric):
    report = graded[head_id(REFERENCE)]
    assert report.assignment == "multi_head"
    assert {c.id: c.feedback for c in report.checks if c.status != "passed"} == {}
    assert rubric.max_score == 100 and report.score == 101  # and the bonus point: its split_heads refuses an uneven width
    assert report.diagnoses == []
    assert set(report.pictures) == {"head_0", "head_1"}
    assert report.pictures["head_0"]["student"] == report.pictures["head_0"]["reference"]


def test_the_template_earns_zero_and_says_what_is_not_written(graded):
    report = graded[head_id(TEMPLATE)]
    assert report.score == 0
    assert all(check.kind == "not_implemented" and "is not written yet" in check.feedback for check in report.checks)


@pytest.mark.parametrize("path", CORRECT, ids=[p.stem for p in CORRECT])
def test_correct_heads_lose_no_points_and_are_told_nothing(graded, rubric, path: Path):
    report = graded[head_id(path)]
    assert {c.id: c.feedback for c in report.checks if c.status != "passed" and not c.bonus} == {}
    assert report.score >= rubric.max_score  # plus the bonus point, where split_heads refuses an uneven width
    assert report.diagnoses == []


@pytest.mark.parametrize("path", BUGGY, ids=[p.stem for p in BUGGY])
def test_buggy_heads_fail_the_check_that_names_their_mistake_and_are_told_it(graded, rubric, path: Path):
    declared = expectation(path)
    assert declared.must_fail and set(declared.must_fail) <= available_check_ids(ASSIGNMENT)
    report = graded[head_id(path)]
    assert declared.violations(report) == {}
    assert report.score < rubric.max_score
    named = tuple(d["id"] for d in report.diagnoses if d["id"] not in NOT_MISTAKES)
    assert named == tuple(mistake for mistake in declared.diagnoses if mistake != "none")
    for check in report.checks:
        if check.status == "failed" and check.counterexample:
            assert "from multi_head import" in check.counterexample["repro"]


def test_the_bonus_for_refusing_an_uneven_width_goes_to_the_heads_whose_split_heads_raises(graded):
    # The truth, from each head's own split_heads run here: 5 columns cannot make 2 heads.
    import importlib.util

    outcomes = set()
    for path in CORRECT:
        spec = importlib.util.spec_from_file_location(f"head_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        try:
            module.split_heads(np.arange(10.0).reshape(2, 5), 2)
            refuses = False
        except (ValueError, AssertionError):
            refuses = True
        except Exception:  # a class of its own named ValueError is not one
            refuses = False
        bonus = next(check for check in graded[head_id(path)].checks if check.id == "split_merge.split_refuses_uneven_width")
        assert bonus.bonus and (bonus.status == "passed") == refuses, path.name
        assert graded[head_id(path)].score == 100 + refuses, path.name
        outcomes.add(refuses)
    assert outcomes == {True, False}  # the correct heads hold both kinds (an assert and a silent slice among them)


def test_the_second_sets_correct_heads_get_full_marks_and_nine_in_ten_of_its_mistakes_are_named_none_wrongly(graded, rubric):
    hits = wanted = 0
    for path in SECOND_SET:
        declared = {part.strip() for part in DECLARED.search(path.read_text()).group(1).split(",")} - {"none", ""}
        report = graded[head_id(path)]
        named = {d["id"] for d in report.diagnoses if d["id"] not in NOT_MISTAKES}
        assert named <= declared, path.name
        if declared:
            assert report.score < rubric.max_score, path.name
        else:
            assert report.score >= rubric.max_score and report.diagnoses == [], path.name
        hits, wanted = hits + len(named), wanted + len(declared)
    assert wanted >= 25 and hits >= 0.9 * wanted


def test_every_known_mistake_has_a_head():
    declared = {mistake for path in BUGGY for mistake in expectation(path).diagnoses} - {"none"}
    assert declared == {mistake.id for mistake in ASSIGNMENT.mistakes().mistakes}


def test_a_file_of_the_first_assignment_is_told_so_in_one_sentence(graded):
    report = graded["reference__attention"]
    assert report.score == 0
    assert report.source["notes"] == [
        "This file defines the functions of the assignment attention_head (softmax, attention, self_attention, "
        "causal_mask), not all of multi_head's: grade it with --assignment attention_head."
    ]
    assert all(
        "it defines the functions of the assignment attention_head instead" in check.feedback
        and "grade it with --assignment attention_head" in check.feedback
        for check in report.checks
    )


def test_a_folder_without_the_handout_gets_a_report_and_a_batch_of_the_other_assignment_a_warning(tmp_path, isolation):
    submissions = tmp_path / "in"
    for name, head in (("kim/solution.py", REFERENCE), ("erin/multi_head.py", REFERENCE), ("bo.py", REFERENCE)):
        (submissions / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(head, submissions / name)
    (submissions / "__MACOSX").mkdir()
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["grade", str(submissions), "--out", str(out), "--sandbox", isolation, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    # As attention_head: bo.py is the sequel's; erin/ and kim/ hold no attention.py, and their reports say so.
    assert sorted(entry["student"] for entry in summary["submissions"]) == ["bo", "erin", "kim"]
    assert json.loads((out / "erin.json").read_text())["error"] == (
        "erin/ holds 'multi_head.py' but no attention.py: rename the file to grade to attention.py."
    )
    assert "1 of 3 submissions define the functions of another assignment than attention_head" in result.output
    out = tmp_path / "out2"
    result = CliRunner().invoke(
        cli, ["grade", str(submissions), "--out", str(out), "--assignment", "multi_head", "--sandbox", isolation]
    )
    assert result.exit_code == 0, result.output
    kim = json.loads((out / "kim.json").read_text())
    assert kim["status"] == "error" and kim["error"] == (
        "kim/ holds 'solution.py' but no multi_head.py: rename the file to grade to multi_head.py."
    )
    assert json.loads((out / "erin.json").read_text())["score"] == 101  # with the bonus point
    assert "another assignment" not in result.output


def test_check_takes_the_assignment_from_the_option_the_rubric_or_the_file_name(tmp_path):
    runner = CliRunner()
    named = tmp_path / "multi_head.py"
    shutil.copyfile(REFERENCE, named)
    other = tmp_path / "ada.py"
    shutil.copyfile(REFERENCE, other)
    sandbox = ["--sandbox", "process"]
    by_name = runner.invoke(cli, ["check", str(named), *sandbox])
    assert by_name.exit_code == 0 and "24 of 24 checks passed; 100/100 points (+1 bonus)." in by_name.output
    by_option = runner.invoke(cli, ["check", "--assignment", "multi_head", str(other), *sandbox])
    assert by_option.exit_code == 0 and "100/100 points" in by_option.output
    by_rubric = runner.invoke(cli, ["check", "--rubric", str(ROOT / "rubrics" / "multi_head.toml"), str(other), *sandbox])
    assert by_rubric.exit_code == 0 and "100/100 points" in by_rubric.output
    default = runner.invoke(cli, ["check", str(other), *sandbox])
    assert "grade it with --assignment multi_head" in default.output


def test_a_rubric_of_the_other_assignment_is_refused_with_one_sentence():
    with pytest.raises(RubricError, match="is the rubric of the assignment multi_head, not attention_head"):
        load_rubric(ROOT / "rubrics" / "multi_head.toml", assignments.get("attention_head"))
    result = CliRunner().invoke(
        cli, ["check", "--assignment", "attention_head", "--rubric", str(ROOT / "rubrics" / "multi_head.toml"), str(REFERENCE)]
    )
    assert result.exit_code != 0 and "grade with --assignment multi_head" in result.output


def test_the_pytest_plugin_grades_the_assignment_it_is_told(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--attention-submission", str(REFERENCE),
         "--attention-assignment", "multi_head", "--attention-sandbox", "process"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert "100/100 points (+1 bonus) (multi_head)" in run.stdout
    named = tmp_path / "multi_head.py"
    shutil.copyfile(REFERENCE, named)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--attention-submission", str(named),
         "--attention-sandbox", "process"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0 and "100/100 points (+1 bonus) (multi_head)" in run.stdout, run.stdout[-2000:]


def test_export_student_hands_out_the_sequel(tmp_path):
    out = tmp_path / "handout"
    result = CliRunner().invoke(cli, ["export-student", str(out), "--assignment", "multi_head", "--install", "attention-grader"])
    assert result.exit_code == 0, result.output
    assert (out / "multi_head.py").read_bytes() == TEMPLATE.read_bytes()
    assert not (out / "attention.py").exists() and not (out / "multi_head.md").exists()
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert readme.startswith((project_file(ASSIGNMENT.template["README.md"])).read_text(encoding="utf-8")[:200])
    assert "grader check multi_head.py --rubric rubric.toml" in readme
    assert load_rubric(out / "rubric.toml").assignment == "multi_head"
    workflow = (out / ".github" / "workflows" / "classroom.yml").read_text(encoding="utf-8")
    assert "submission=multi_head.py" in workflow and "attention.py" not in workflow
    notebook = tmp_path / "notebook"
    result = CliRunner().invoke(
        cli, ["export-student", str(notebook), "--assignment", "multi_head", "--install", "attention-grader", "--notebook"]
    )
    assert result.exit_code == 0, result.output
    cells = json.loads((notebook / "multi_head.ipynb").read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    assert any(source.startswith("def split_heads(") for source in sources)
    assert "## `split_heads(X, n_heads)`" in sources
    assert "grades the three functions they define" in sources[0]
    assert sources[-1].endswith("%load_ext grader\n%grade --rubric rubric.toml")


def test_the_platform_bundles_grade_the_sequel(tmp_path):
    runner = CliRunner()
    zipped = tmp_path / "autograder.zip"
    result = runner.invoke(cli, ["gradescope-bundle", str(zipped), "--assignment", "multi_head"])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(zipped) as archive:
        run_autograder = archive.read("run_autograder").decode()
        setup = archive.read("setup.sh").decode()
        names = archive.namelist()
        bundled_rubric = archive.read("rubric.toml")
    assert "for NAME in multi_head.py multi_head.ipynb" in run_autograder and "@HANDOUT@" not in run_autograder
    assert f"grader check grader/_bundled/{ASSIGNMENT.reference}" in setup
    assert f"grader/_bundled/{ASSIGNMENT.reference}" in names and f"grader/_bundled/{ASSIGNMENT.rubric}" in names
    assert bundled_rubric == (ROOT / ASSIGNMENT.rubric).read_bytes()
    folder = tmp_path / "prairielearn"
    result = runner.invoke(cli, ["prairielearn-bundle", str(folder), "--assignment", "multi_head"])
    assert result.exit_code == 0, result.output
    assert "for name in multi_head.py multi_head.ipynb" in (folder / "entrypoint").read_text()
    assert f"grader check grader/_bundled/{ASSIGNMENT.reference}" in (folder / "Dockerfile").read_text()
