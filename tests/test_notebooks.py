"""Notebook submissions graded the way students hand them in: the notebooks under
tests/notebooks/ (Colab, VS Code and classic Jupyter exports, with outputs, magics,
plots, input() and the lesson's own asserts, nbformat 3, broken ones) in one batch,
through `grader check`, through pytest's plugin, and beside Python files in a folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from conftest import REFERENCE, TESTS, expectation

from grader.batch import grade_folder, read_in_full
from grader.batch.submissions import find_submissions
from grader.cli import cli
from grader.engine.counterexample import NOTEBOOK_HINT
from grader.report import Report
from grader.report.formats import REPORT_FORMATS
from grader.sandbox import Limits
from grader.sources import MAX_NOTEBOOK_BYTES

NOTEBOOKS = TESTS / "notebooks"
CASES = sorted(path for path in NOTEBOOKS.iterdir() if path.suffix in (".ipynb", ".py"))


def cell_and_line(notebook: Path, text: str) -> tuple[int, int]:
    """Where ``text`` first stands in the notebook, as feedback should name it."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells, start=1):
        for line_number, line in enumerate("".join(cell["source"]).split("\n"), start=1):
            if text in line:
                return number, line_number
    raise AssertionError(f"{text!r} is not in {notebook}")


@pytest.fixture(scope="module")
def notebook_batch(tmp_path_factory, rubric, isolation) -> dict[str, Report]:
    folder, out = tmp_path_factory.mktemp("notebooks"), tmp_path_factory.mktemp("reports")
    for path in CASES:
        shutil.copyfile(path, folder / path.name)
    reports = grade_folder(folder, out, rubric, Limits(isolation=isolation), jobs=os.cpu_count() or 1)
    return {report.student: report for report in read_in_full(out, reports)}


@pytest.mark.parametrize("path", CASES, ids=lambda path: path.name)
def test_each_notebook_gets_what_its_functions_earn(notebook_batch, path: Path):
    declared = expectation(path)
    report = notebook_batch[path.stem]
    assert report.status == declared.status, report.error
    assert declared.violations(report) == {}
    assert [diagnosis["id"] for diagnosis in report.diagnoses] == list(declared.diagnoses)
    if report.status == "error":
        assert report.error and "\n" not in report.error and "attention.ipynb" in report.error


def test_feedback_points_at_the_cell_and_line(notebook_batch):
    batched = next(check for check in notebook_batch["colab_lesson"].checks if check.id == "extension.batched")
    cell, line = cell_and_line(NOTEBOOKS / "colab_lesson.ipynb", "scores = (Q @ K.T)")
    assert f"(attention.ipynb, cell {cell}, line {line})" in batched.feedback


def test_a_notebook_repro_is_a_cell_to_paste_into_it(notebook_batch):
    report = notebook_batch["classic_missing_scale"]
    repros = [check.counterexample["repro"] for check in report.checks if check.counterexample]
    assert repros
    for repro in repros:
        assert repro.startswith(NOTEBOOK_HINT) and "from attention import" not in repro
    python = notebook_batch["python_saved_as"]
    assert python.source["kind"] == "python" and "holds Python source" in python.source["notes"][0]


def test_the_report_says_which_cells_ran_and_what_was_left_out(notebook_batch):
    source = notebook_batch["colab_lesson"].source
    assert source["kind"] == "notebook" and "top to bottom" in source["notes"][0]
    definitions, _ = cell_and_line(NOTEBOOKS / "colab_lesson.ipynb", "def attention(")
    assert definitions in source["cells"]
    left_out = {piece["code"]: piece for piece in source["left_out"]}
    assert "input" in left_out["name = input('Your name: ')"]["reason"]
    assert "shell command" in left_out["!pip install -q tqdm"]["reason"]
    assert "does not have" in left_out["import matplotlib.pyplot as plt"]["reason"]
    assert (left_out["plt.show()"]["cell"], left_out["plt.show()"]["line"]) == cell_and_line(
        NOTEBOOKS / "colab_lesson.ipynb", "plt.show()"
    )
    assert notebook_batch["nbformat3"].source["cells"]  # converted from worksheets


def test_grader_check_reads_a_notebook_and_says_how(tmp_path):
    notebook = tmp_path / "attention.ipynb"
    shutil.copyfile(NOTEBOOKS / "magics_and_redefinitions.ipynb", notebook)
    result = CliRunner().invoke(cli, ["check", str(notebook), "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert "100/100 points" in result.output and "How the file was read:" in result.output
    cell, line = cell_and_line(notebook, "def broken(:")
    assert f"cell {cell}, line {line}:  def broken(:" in result.output and "syntax error" in result.output
    assert json.loads((tmp_path / "r.json").read_text())["source"]["kind"] == "notebook"


def test_grader_check_gives_a_broken_notebook_a_report(tmp_path):
    result = CliRunner().invoke(cli, ["check", str(NOTEBOOKS / "broken_cut_short.ipynb"), "--json", "-"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["status"] == "error" and "JSON is broken" in report["error"] and report["score"] == 0


def test_pytest_runs_a_notebooks_functions(tmp_path, graded_heads):
    shutil.copyfile(NOTEBOOKS / "classic_missing_scale.ipynb", tmp_path / "attention.ipynb")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "attention.ipynb", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS"))},
    )
    assert run.returncode == 1, run.stdout[-2000:]
    assert "FAILED attention.py::attention.scaling" in run.stdout and NOTEBOOK_HINT in run.stdout
    # The notebook's head is the lesson's without the scale: it earns what that head earns.
    assert f"{graded_heads['variants__missing_scale'].score:g}/100 points" in run.stdout


def test_pytest_refuses_a_notebook_it_cannot_read(tmp_path):
    shutil.copyfile(NOTEBOOKS / "broken_no_code_cells.ipynb", tmp_path / "attention.ipynb")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "attention.ipynb", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 4 and "has no code cells" in run.stderr, run.stderr[-2000:]


def test_a_folder_mixes_notebooks_and_python_files(tmp_path):
    for layout in ("ada.ipynb", "bob/attention.ipynb", "cy.py", "cy.ipynb", "dee/attention.py", "dee/attention.ipynb"):
        (tmp_path / layout).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NOTEBOOKS / "nbformat3.ipynb" if layout.endswith(".ipynb") else REFERENCE, tmp_path / layout)
    found = {submission.student: submission.path.relative_to(tmp_path).as_posix() for submission in find_submissions(tmp_path, "attention.py")}
    # A Python file beside a notebook of the same id is the one graded.
    assert found == {"ada": "ada.ipynb", "bob": "bob/attention.ipynb", "cy": "cy.py", "dee": "dee/attention.py"}


def test_outputs_of_any_size_are_never_read_and_an_oversized_file_is_refused_alone(tmp_path, rubric, isolation):
    made = nbformat.read(NOTEBOOKS / "vscode_out_of_order.ipynb", as_version=4)
    made.cells[-1].outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo" * 2_000_000})]
    big = nbformat.writes(made)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "plots.ipynb").write_text(big, encoding="utf-8")
    (folder / "huge.ipynb").write_text(big + " " * (MAX_NOTEBOOK_BYTES - len(big) + 1), encoding="utf-8")
    assert 16 * 1024 * 1024 < len(big) < MAX_NOTEBOOK_BYTES
    reports = {report.student: report for report in grade_folder(folder, tmp_path / "out", rubric, Limits(isolation=isolation), jobs=2)}
    assert reports["plots"].status == "graded" and reports["plots"].score == rubric.max_score
    assert reports["huge"].status == "error" and "at most" in reports["huge"].error


@pytest.mark.parametrize("name", ["text", "html", "markdown", "gradescope", "prairielearn"])
def test_every_format_for_students_says_how_the_notebook_was_read(notebook_batch, name):
    written = REPORT_FORMATS[name](notebook_batch["colab_lesson"])
    assert "How the file was read" in written and "!pip install -q tqdm" in written
