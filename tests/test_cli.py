"""The command line, driven through Click's CliRunner (and once as ``python -m grader``)."""

from __future__ import annotations

import csv
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REFERENCE, ROOT, TEMPLATE

from grader.assignments.rubric import load_rubric
from grader.batch import grade_folder, read_in_full
from grader.cli import cli
from grader.report import from_json
from grader.sandbox import Limits

REPORT_KEYS = {
    "schema_version", "student", "submission", "submission_sha256", "score", "max_score", "status", "error",
    "checks", "diagnoses", "pictures", "rubric", "grader_version", "duration_s", "sandbox", "self_check", "source",
    "bounds", "examples", "assignment", "limits",
}
CHECK_KEYS = {
    "id", "description", "status", "points", "max_points", "visibility", "bonus", "kind", "feedback", "counterexample",
}
SMALL_RUBRIC = """
name = "small"
[[checks]]
id = "softmax.rows_sum_to_one"
points = 2
description = "rows sum to 1"
[[checks]]
id = "causal_mask.values"
points = 3
[[checks]]
id = "extension.batched"
points = 1
bonus = true
"""


@pytest.fixture
def small_rubric(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_RUBRIC)
    return path


def run(*args: str):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def test_check_prints_a_report_and_writes_json(tmp_path, small_rubric):
    result = run("check", REFERENCE, "--rubric", small_rubric, "--json", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert "5/5 points (+1 bonus)" in result.output and "PASS" in result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report) == REPORT_KEYS
    assert all(set(check) == CHECK_KEYS for check in report["checks"])
    assert (report["schema_version"], report["status"], report["score"], report["max_score"]) == (1, "graded", 6, 5)
    assert [c["id"] for c in report["checks"]] == ["softmax.rows_sum_to_one", "causal_mask.values", "extension.batched"]
    assert report["diagnoses"] == [] and report["rubric"]["name"] == "small"


def test_check_json_to_stdout_prints_only_json(small_rubric):
    result = run("check", TEMPLATE, "--rubric", small_rubric, "--json", "-")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["score"] == 0 and report["status"] == "graded"
    assert all(check["kind"] == "not_implemented" for check in report["checks"])


def test_a_failed_check_shows_feedback_and_a_repro(tmp_path, small_rubric):
    buggy = tmp_path / "attention.py"
    buggy.write_text(REFERENCE.read_text().replace("np.tril(np.ones((n, n), dtype=bool))", "np.triu(np.ones((n, n), dtype=bool))"))
    result = run("check", buggy, "--rubric", small_rubric)
    assert result.exit_code == 0
    assert "FAIL" in result.output and "may not attend" in result.output
    assert "print(causal_mask(2))" in result.output, result.output


def test_unreadable_or_invalid_rubric_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[checks]]\nid = "nope.nope"\npoints = 1\n')
    result = run("check", REFERENCE, "--rubric", bad)
    assert result.exit_code == 3
    assert result.output.count("\n") == 1 and "no check is called 'nope.nope'" in result.output
    assert "Traceback" not in result.output
    assert run("check", REFERENCE, "--rubric", tmp_path / "missing.toml").exit_code == 3


def test_a_missing_submission_is_a_usage_error():
    result = run("check", "no/such/file.py")
    assert result.exit_code == 2 and "does not exist" in result.output


def test_grade_accepts_both_layouts_and_writes_the_gradebook(tmp_path, small_rubric, isolation):
    submissions = tmp_path / "submissions"
    (submissions / "bea").mkdir(parents=True)
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    shutil.copyfile(TEMPLATE, submissions / "bea" / "attention.py")
    (submissions / "notes.txt").write_text("not a submission")
    out = tmp_path / "out"
    result = run("grade", submissions, "--out", out, "--jobs", 2, "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["ada.json", "bea.json", "grades.csv", "summary.json"]
    assert json.loads((out / "ada.json").read_text())["score"] == 6
    summary = json.loads((out / "summary.json").read_text())
    assert [(s["student"], s["score"], s["report"]) for s in summary["submissions"]] == [
        ("ada", 6, "ada.json"), ("bea", 0, "bea.json"),
    ]
    assert summary["count"] == 2 and summary["max_score"] == 5
    rows = list(csv.DictReader((out / "grades.csv").read_text().splitlines()))
    assert [(r["student"], r["score"], r["causal_mask.values"]) for r in rows] == [("ada", "6", "3"), ("bea", "0", "0")]


def test_a_folder_without_the_handout_is_reported_not_skipped(tmp_path, small_rubric, isolation):
    submissions = tmp_path / "submissions"
    for folder in ("cy", "dee", "__MACOSX"):
        (submissions / folder).mkdir(parents=True)
    (submissions / "cy" / "solution.py").write_bytes(REFERENCE.read_bytes())
    shutil.copyfile(REFERENCE, submissions / "dee" / "attention.py")
    out = tmp_path / "out"
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation, "--jobs", 1)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.glob("*.json")) == ["cy.json", "dee.json", "summary.json"]
    cy = json.loads((out / "cy.json").read_text())
    assert (cy["status"], cy["score"]) == ("error", 0)
    assert cy["error"] == "cy/ holds 'solution.py' but no attention.py: rename the file to grade to attention.py."


def test_grade_writes_junit_and_canvas_when_asked(tmp_path, small_rubric, isolation):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "lovelaceada_123456_789_attention.py")
    shutil.copyfile(TEMPLATE, submissions / "bea.py")
    out = tmp_path / "out"
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation,
                 "--junit", "--canvas", "--canvas-assignment", "Attention (42)")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader((out / "canvas.csv").read_text().splitlines()))
    assert rows[0][-1] == "Attention (42)" and rows[1] == ["Points Possible", "", "", "", "", "5"]
    assert sorted((row[0], row[1], row[3], row[5]) for row in rows[2:]) == [
        ("bea", "", "bea", "0"), ("lovelaceada", "123456", "", "6"),
    ]
    junit = (out / "junit.xml").read_text()
    assert junit.count("<testsuite ") == 2 and 'name="bea"' in junit
    assert "is not written yet" in junit  # feedback, from the report in full


def test_a_batch_leaves_no_output_older_than_itself(tmp_path, small_rubric, isolation):
    """Graded again without --canvas (or --html, --junit, --similarity), the outputs an
    earlier batch wrote are removed, not left to be uploaded in place of today's; a report
    whose submission has left the folder stays, and is named as not of this batch."""
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    shutil.copyfile(TEMPLATE, submissions / "bea.py")
    out = tmp_path / "out"
    asked = ["--junit", "--canvas", "--html", "--similarity"]
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation, *asked)
    assert result.exit_code == 0, result.output
    everything = {"junit.xml", "canvas.csv", "similarity.json", "index.html", "ada.html", "bea.html"}
    assert everything <= {path.name for path in out.iterdir()}
    (submissions / "bea.py").unlink()
    (out / "notes.txt").write_text("the instructor's own file")
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation, "--canvas")
    assert result.exit_code == 0, result.output
    left = {path.name for path in out.iterdir()}
    assert "canvas.csv" in left and not (everything - {"canvas.csv", "bea.html"}) & left
    assert "bea.json" in left and "notes.txt" in left  # not the batch's outputs: never removed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["outputs"] == ["summary.json", "grades.csv", "canvas.csv"]
    assert set(summary["removed_outputs"]) == everything - {"canvas.csv", "bea.html"}
    assert summary["reports_not_in_batch"] == ["bea"]
    assert "removed what an earlier batch wrote" in result.output and "junit.xml" in result.output


def test_check_writes_each_format_where_asked(tmp_path, small_rubric):
    result = run("check", REFERENCE, "--rubric", small_rubric, "--format", f"junit:{tmp_path / 'j.xml'}",
                 "--format", "gradescope")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["score"] == 6  # gradescope on stdout, in place of the text
    assert "<testsuites" in (tmp_path / "j.xml").read_text()


@pytest.mark.parametrize(
    "formats, message",
    [(["--format", "pdf"], "'pdf' is not one of"), (["--format", "junit", "--json", "-"], "only one format")],
)
def test_bad_formats_are_usage_errors(small_rubric, formats, message):
    result = run("check", REFERENCE, "--rubric", small_rubric, *formats)
    assert result.exit_code == 2 and message in result.output


def test_an_empty_folder_gets_a_clear_message(tmp_path, isolation):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "notes.txt").write_text("no submission here")
    result = run("grade", folder, "--out", tmp_path / "out", "--sandbox", isolation)
    assert result.exit_code == 2 and "no submissions in" in result.output


def test_names_that_clash_are_each_graded_under_an_id_of_their_own(tmp_path, small_rubric, isolation):
    """Two names that give one id, a name of a file the batch writes, or one too long for a
    report's file name stop nothing: each is graded, under the same id whatever order the
    folder lists them in, and its report says why the id is not its name."""
    folder = tmp_path / "in"
    # A real ESC, and the four characters that show it: both read "e\x1b" once escaped.
    names = ["ada.py", "ada/attention.py", "summary.py", "index.py", "e\x1b.py", r"e\x1b.py", "a" * 240 + ".py"]
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REFERENCE, folder / name)
    out = tmp_path / "out"
    result = run("grade", folder, "--out", out, "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    ids = [entry["student"] for entry in summary["submissions"]]
    assert summary["count"] == len(names) == len(set(ids)) and all(entry["score"] == 6 for entry in summary["submissions"])
    assert {"ada", r"e\x1b"} <= set(ids) and "summary" not in ids and "index" not in ids
    renamed = [student for student in ids if "~" in student]
    assert len(renamed) == 5 and all(len(student.encode()) <= 160 for student in ids)
    for student in renamed:
        report = json.loads((out / f"{student}.json").read_text())
        if not student.startswith("aaaa"):
            assert f"it is graded as {student}" in " ".join(report["source"]["notes"])
    again = run("grade", folder, "--out", tmp_path / "again", "--rubric", small_rubric, "--sandbox", isolation)
    assert sorted(p.name for p in (tmp_path / "again").glob("*.json")) == sorted(p.name for p in out.glob("*.json"))


def test_python_dash_m_runs_the_same_cli():
    result = subprocess.run([sys.executable, "-m", "grader", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.startswith("grader, version ")
    result = subprocess.run([sys.executable, "-m", "grader", "check", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and "--rubric" in result.stdout and "--json" in result.stdout


def test_a_batch_keeps_only_summaries_in_memory_and_reads_reports_back_in_full(tmp_path, small_rubric, isolation):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copyfile(TEMPLATE, submissions / "bea.py")
    out = tmp_path / "out"
    (kept,) = grade_folder(submissions, out, load_rubric(small_rubric), Limits(isolation=isolation), jobs=1)
    assert kept.score == 0 and all(check.feedback is None and check.counterexample is None for check in kept.checks)
    (full,) = read_in_full(out, [kept])
    assert full == from_json((out / "bea.json").read_text()) and all(check.feedback for check in full.checks)


def test_grade_resumes_keeping_current_reports_and_regrades_changed_ones(tmp_path, small_rubric, isolation):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    shutil.copyfile(TEMPLATE, submissions / "bea.py")
    assert run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation).exit_code == 0
    first = {name: (out / name).read_text() for name in ("ada.json", "bea.json")}
    shutil.copyfile(REFERENCE, submissions / "bea.py")  # bea finishes her head
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0
    assert "graded 1 submission in" in result.output and "(1 kept from an earlier run)" in result.output
    assert (out / "ada.json").read_text() == first["ada.json"]
    assert json.loads((out / "bea.json").read_text())["score"] == 6
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation, "--regrade")
    assert "graded 2 submissions" in result.output and "kept" not in result.output


def test_an_unreadable_or_unusable_file_gets_an_error_report_and_the_batch_goes_on(tmp_path, small_rubric, isolation):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    (submissions / "ghost.py").symlink_to(tmp_path / "nowhere.py")
    (submissions / "nb.py").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4}))
    (submissions / "empty.py").write_text("\n")
    result = run("grade", submissions, "--out", out, "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0, result.output
    reports = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json") if p.stem != "summary"}
    assert reports["ada"]["score"] == 6
    assert reports["ghost"]["status"] == "error" and "ghost.py is a symbolic link" in reports["ghost"]["error"]
    assert reports["nb"]["status"] == "error" and "has no code cells" in reports["nb"]["error"]
    assert reports["empty"]["status"] == "error" and "is empty" in reports["empty"]["error"]
    assert json.loads((out / "summary.json").read_text())["errors"] == 3


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_killed_batch_resumes_without_half_written_reports(tmp_path, small_rubric, stop, isolation):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    students = [f"student{number}" for number in range(6)]
    for student in students:
        shutil.copyfile(REFERENCE, submissions / f"{student}.py")
    command = [sys.executable, "-m", "grader", "grade", str(submissions), "--out", str(out),
               "--jobs", "1", "--rubric", str(small_rubric), "--sandbox", isolation]
    # SIGINT as a terminal sends it, even where this run inherited it ignored (a shell's
    # background job, say), which the batch would inherit too.
    batch = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while len(list(out.glob("student*.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    batch.send_signal(stop)
    batch.wait(timeout=60)
    done = sorted(path.stem for path in out.glob("student*.json"))
    assert 2 <= len(done) < len(students)
    first = {path.name: path.read_text() for path in out.glob("student*.json")}
    for text in first.values():
        assert json.loads(text)["score"] == 6  # complete, never half-written
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"({len(done)} kept from an earlier run)" in result.stdout
    # No progress bar when stderr is not a terminal (a warning about this machine's
    # sandbox may be there: see test_bounds).
    assert [line for line in result.stderr.splitlines() if not line.startswith("grader: warning:")] == []
    assert {name: (out / name).read_text() for name in first} == first
    assert sorted(path.stem for path in out.glob("student*.json")) == students
    assert json.loads((out / "summary.json").read_text())["count"] == len(students)


def test_grade_ends_with_a_summary_of_scores_and_the_slowest(tmp_path, small_rubric, isolation):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copyfile(REFERENCE, submissions / "ada.py")
    shutil.copyfile(TEMPLATE, submissions / "bea.py")
    result = run("grade", submissions, "--out", tmp_path / "out", "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0
    assert "graded 2 submissions in" in result.output
    assert "scores: mean 3.0, median 3 of 5; 0 with errors" in result.output
    assert "slowest: " in result.output and "ada (" in result.output and "bea (" in result.output


def test_grade_says_once_when_no_kernel_bound_holds_a_sandbox(tmp_path, small_rubric, isolation, monkeypatch):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for name in ("ada", "bob"):
        shutil.copyfile(REFERENCE, submissions / f"{name}.py")
    unbounded = {"processes": None, "processes_by": [], "memory_mb": 1280, "memory_by": ["cgroup v1"], "uid": 0}
    monkeypatch.setattr("grader.cli.grading.enforced", lambda limits: unbounded)
    result = run("grade", submissions, "--out", tmp_path / "out", "--rubric", small_rubric, "--sandbox", isolation)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("no kernel bound on a sandbox's processes") == 1
    assert result.stderr.count("the sandbox is root outside its user namespace") == 1
    assert result.stderr.count("grader: warning:") == 1  # one line says both


def test_check_of_a_file_written_for_no_known_assignment_names_the_file_and_the_option(tmp_path):
    """A course's file checked without --assignment is not graded as the lesson because one
    of its helpers is called softmax: the one sentence names the file and the option."""
    rope = tmp_path / "rope.py"
    rope.write_text("import numpy as np\n\n\ndef softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis, keepdims=True)\n\n\n"
                    "def apply_rope(X):\n    return X\n\n\ndef rope_attention(Q, K, V):\n    return softmax(apply_rope(Q) @ K.T) @ V\n")
    result = CliRunner().invoke(cli, ["check", str(rope)])
    assert result.exit_code == 2 and "rope.py is not named attention.py" in result.output, result.output
    assert "--assignment" in result.output and "apply_rope, rope_attention" in result.output
    # A half-written head of the lesson, under any name, is graded and told what is missing.
    partial = tmp_path / "my_head.py"
    partial.write_text("import numpy as np\n\n\ndef softmax(x, axis=-1):\n    return x\n\n\ndef _stable(x):\n    return x\n")
    assert CliRunner().invoke(cli, ["check", str(partial)]).exit_code == 0


RAISES_IN_A_HELPER = """import numpy as np


def softmax(x, axis=-1):
    return _normalised(np.exp(x - x.max(axis=axis, keepdims=True)), axis)


def _normalised(e, axis):
    raise ValueError("not yet")
"""


def test_check_calls_the_file_by_its_own_name_and_a_batch_by_the_handouts(tmp_path, small_rubric, isolation):
    """The student's "line 9" is in the file they checked, and the repro imports that file;
    a name Python cannot import (or a batch's file, named by the folder) is the handout's."""
    sandbox = ("--sandbox", isolation)
    for name, module in (
        ("my_head.py", "my_head"), ("lab 3.py", "attention"), ("attention.py", "attention"),
        ("numpy.py", "attention"), ("random.py", "attention"), ("__main__.py", "attention"), ("my_head", "attention"),
    ):
        (tmp_path / name).write_text(RAISES_IN_A_HELPER)
        result = run("check", tmp_path / name, "--rubric", small_rubric, *sandbox, "--json", tmp_path / "r.json")
        assert result.exit_code == 0, result.output
        failed = next(c for c in json.loads((tmp_path / "r.json").read_text())["checks"] if c["id"] == "softmax.rows_sum_to_one")
        assert f"_normalised() raised ValueError: not yet ({module}.py, line 9)" in failed["feedback"], failed["feedback"]
        assert f"from {module} import softmax" in failed["counterexample"]["repro"]
    folder = tmp_path / "batch"
    folder.mkdir()
    (folder / "my_head.py").write_text(RAISES_IN_A_HELPER)
    out = tmp_path / "reports"
    assert run("grade", folder, "--out", out, "--rubric", small_rubric, *sandbox).exit_code == 0
    failed = next(c for c in json.loads((out / "my_head.json").read_text())["checks"] if c["id"] == "softmax.rows_sum_to_one")
    assert "(attention.py, line 9)" in failed["feedback"] and "from attention import" in failed["counterexample"]["repro"]
