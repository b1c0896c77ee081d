"""The grader dropped into the places courses use, run the way those places run it:
Gradescope's run_autograder in a fake /autograder tree, the student bundle with its
GitHub Classroom workflow step, and pytest with the plugin."""

from __future__ import annotations

import ast
import base64
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml
from click.testing import CliRunner
from conftest import HEADS, REFERENCE, ROOT, VARIANTS

import grader
from grader import assignments
from grader.assignments.rubric import load_rubric
from grader.cli import cli
from grader.report import score_summary
from grader.resources import project_file

REFERENCE_HEAD = assignments.get().reference

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gradescope_results.schema.json").read_text())
BUGGY = VARIANTS / "missing_scale.py"
BIN = Path(sys.executable).parent  # the environment the grader is installed in


COURSE_SECRET = "a-course-secret-of-32-characters"


def _environment(**extra: str) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS"))}
    environment["PATH"] = f"{BIN}{os.pathsep}{environment.get('PATH', '')}"
    return {**environment, **extra}


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    result = CliRunner().invoke(cli, ["gradescope-bundle", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _put(path: Path, content: bytes | Path) -> None:
    """A submission's file: its bytes, or (a Path) a symbolic link to that path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, Path):
        path.symlink_to(content)
    else:
        path.write_bytes(content)


def _fake_autograder(zip_path: Path, root: Path, submission: dict[str, bytes | Path]) -> dict:
    """Unzip the bundle as Gradescope does, add the submission's files, run run_autograder."""
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    for name, content in submission.items():
        _put(root / "submission" / name, content)
    (root / "submission").mkdir(exist_ok=True)
    script = root / "source" / "run_autograder"
    run = subprocess.run(
        ["bash", str(script)],
        env=_environment(AUTOGRADER_ROOT=str(root), GRADER_PYTHON=sys.executable),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, SCHEMA)
    return results


def test_gradescope_bundle_layout(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        rubric = archive.read("rubric.toml")
        requirements = archive.read("requirements.txt").decode()
    assert {"setup.sh", "run_autograder", "requirements.txt", "rubric.toml"} <= names
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    assert f"grader/_bundled/{REFERENCE_HEAD}" in names and "grader/cli/__init__.py" in names
    assert not any("__pycache__" in name for name in names)
    assert rubric == project_file("rubrics/attention_head.toml").read_bytes()
    assert "hypothesis==" in requirements and "numpy==" in requirements
    for script in ("setup.sh", "run_autograder"):
        syntax = subprocess.run(["bash", "-n", "-c", zipfile.ZipFile(autograder_zip).read(script).decode()])
        assert syntax.returncode == 0, script


def test_run_autograder_grades_the_submission(autograder_zip, graded_heads, tmp_path):
    results = _fake_autograder(autograder_zip, tmp_path / "autograder", {"attention.py": BUGGY.read_bytes()})
    expected = graded_heads["variants__missing_scale"]
    assert results["score"] == expected.score
    assert [test["status"] == "passed" for test in results["tests"]] == [c.status == "passed" for c in expected.checks]
    assert sum(test["max_score"] for test in results["tests"]) == expected.max_score


def test_run_autograder_finds_a_nested_file_and_explains_a_missing_one(autograder_zip, tmp_path):
    nested = _fake_autograder(
        autograder_zip,
        tmp_path / "nested",
        {"hw/attention.py": REFERENCE.read_bytes(), ".venv/lib/attention.py": b"", "hw/deep/attention.py": b""},
    )
    assert nested["score"] == 105  # full marks and the bonus: hw/attention.py was graded
    missing = _fake_autograder(autograder_zip, tmp_path / "missing", {"attn.py": REFERENCE.read_bytes()})
    assert missing["score"] == 0 and "attention.py" in missing["output"]
    too_large = _fake_autograder(autograder_zip, tmp_path / "large", {"attention.py": b"#" * (2 << 20)})
    assert too_large["score"] == 0 and "at most" in too_large["output"]


def test_run_autograder_never_follows_a_link(autograder_zip, tmp_path):
    """A link in an upload (a zip keeps them) is refused with a sentence, and what it points
    to (the reference, a secret of the container) reaches no result."""
    secret = tmp_path / "container.env"
    secret.write_text("TOKEN=sk_live_NOT_FOR_STUDENTS\n")
    for name, upload in {
        "top": {"attention.py": secret},
        "nested": {"hw/attention.py": REFERENCE},
    }.items():
        results = _fake_autograder(autograder_zip, tmp_path / name, upload)
        assert results["score"] == 0 and "symbolic link" in results["output"], results["output"]
        assert "sk_live" not in json.dumps(results)


def test_run_autograder_grades_with_the_course_secret_its_bundle_carries(autograder_zip, tmp_path):
    (tmp_path / "secret").write_text("a-course-secret-of-32-characters")
    with_secret = tmp_path / "with_secret.zip"
    result = CliRunner().invoke(cli, ["gradescope-bundle", str(with_secret), "--secret-file", str(tmp_path / "secret")])
    assert result.exit_code == 0, result.output
    graded = {
        name: _fake_autograder(bundle, tmp_path / name, {"attention.py": BUGGY.read_bytes()})
        for name, bundle in (("public", autograder_zip), ("course", with_secret))
    }
    scaling = {
        name: next(t for t in results["tests"] if t["name"].startswith("attention.scaling")) for name, results in graded.items()
    }
    assert "reproduce it" in scaling["course"]["output"] and scaling["course"]["output"] != scaling["public"]["output"]


def test_run_autograder_grades_a_notebook(autograder_zip, graded_heads, tmp_path):
    notebooks = ROOT / "tests" / "notebooks"
    graded = _fake_autograder(
        autograder_zip, tmp_path / "notebook", {"hw/attention.ipynb": (notebooks / "classic_missing_scale.ipynb").read_bytes()}
    )
    # The notebook's head is the lesson's without the scale: it earns what that head earns.
    assert graded["score"] == graded_heads["variants__missing_scale"].score, graded["output"]
    scaling = next(test for test in graded["tests"] if test["name"].startswith("attention.scaling"))
    assert "new cell at the end of your notebook" in scaling["output"]
    # A Python file beside it is the one graded.
    both = _fake_autograder(autograder_zip, tmp_path / "both", {
        "attention.ipynb": (notebooks / "classic_missing_scale.ipynb").read_bytes(), "attention.py": REFERENCE.read_bytes(),
    })
    assert both["score"] == 105


@pytest.fixture(scope="module")
def student_bundle(tmp_path_factory) -> tuple[Path, set[str]]:
    """The student bundle of a rubric that hides two checks."""
    folder = tmp_path_factory.mktemp("export")
    source = project_file("rubrics/attention_head.toml").read_text(encoding="utf-8")
    hidden = {"mask.fully_masked_row_nan", "self_attention.permutation_equivariance"}
    for check_id, visibility in zip(sorted(hidden), ("hidden", "after_due_date")):
        marker = f'id = "{check_id}"'
        start = source.index(marker)
        end = source.index('visibility = "visible"', start)
        source = source[:end] + f'visibility = "{visibility}"' + source[end + len('visibility = "visible"'):]
    rubric = folder / "course.toml"
    rubric.write_text(source, encoding="utf-8")
    out = folder / "student"
    install = "attention-grader @ git+https://example.org/course/grader@v1"
    result = CliRunner().invoke(cli, ["export-student", str(out), "--rubric", str(rubric), "--install", install])
    assert result.exit_code == 0, result.output
    return out, hidden


def _statements(source: str) -> set[str]:
    """The reference's code, as normalised statements (docstrings the template shares aside)."""
    kinds = (ast.Assign, ast.AugAssign, ast.Return, ast.If, ast.Expr)
    return {ast.unparse(node) for node in ast.walk(ast.parse(source)) if isinstance(node, kinds)
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))}


def test_student_bundle_has_no_reference_and_no_hidden_checks(student_bundle):
    out, hidden = student_bundle
    files = {path.relative_to(out).as_posix(): path.read_bytes() for path in out.rglob("*") if path.is_file()}
    assert set(files) == {"attention.py", "README.md", "rubric.toml", ".github/workflows/classroom.yml"}
    statements = _statements(project_file(REFERENCE_HEAD).read_text(encoding="utf-8"))
    assert len(statements) > 5
    for name, content in files.items():
        if name.endswith(".py"):
            assert not statements & _statements(content.decode()), name
        for check_id in hidden:
            assert check_id.encode() not in content, (name, check_id)
    public = load_rubric(out / "rubric.toml")
    full = load_rubric(project_file("rubrics/attention_head.toml"))
    assert set(public.check_ids) == set(full.check_ids) - hidden
    assert all(check.visibility == "visible" for check in public.checks)
    assert "grader check attention.py --rubric rubric.toml" in files["README.md"].decode()
    assert "git+https://example.org/course/grader@v1" in files[".github/workflows/classroom.yml"].decode()


def test_a_handout_can_carry_the_grader_as_a_wheel_students_install(tmp_path):
    """`export-student --install wheel` writes the grader's own wheel into the handout, and
    every command there installs that file: a fresh virtual environment installs it with
    pip (no package index for the grader) and grades with it."""
    out = tmp_path / "handout"
    result = CliRunner().invoke(cli, ["export-student", str(out), "--install", "wheel", "--notebook"])
    assert result.exit_code == 0, result.output
    (wheel,) = out.glob("*.whl")
    assert wheel.name == f"attention_grader-{grader.__version__}-py3-none-any.whl"
    spec = f"./{wheel.name}"
    assert f'pip install "{spec}"' in (out / "README.md").read_text()
    assert f"|| '{spec}'" in (out / ".github/workflows/classroom.yml").read_text()
    notebook = nbformat.read(out / "attention.ipynb", as_version=4)
    assert notebook.cells[-1].source.startswith(f'%pip install --quiet "{spec}"')
    assert "upload it too" in notebook.cells[-2].source
    again = tmp_path / "again"
    assert CliRunner().invoke(cli, ["export-student", str(again), "--install", "wheel"]).exit_code == 0
    assert (again / wheel.name).read_bytes() == wheel.read_bytes()  # the same grader gives the same bytes
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The grader's dependencies come from this interpreter's site-packages (the test needs
    # no network); a path in a .pth is searched after the venv's own site-packages, where
    # the wheel's grader goes, and its own .pth files (this checkout's editable install) are not read.
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--force-reinstall", "--no-deps", str(wheel)],
        capture_output=True, text=True,
    )
    assert installed.returncode == 0, installed.stderr
    shutil.copyfile(project_file(REFERENCE_HEAD), out / "attention.py")
    graded = subprocess.run(
        [venv / "bin" / "grader", "check", "attention.py", "--rubric", "rubric.toml", "--json", "-", "--sandbox", "process"],
        cwd=out, capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert graded.returncode == 0, graded.stderr
    report = json.loads(graded.stdout)
    assert report["score"] >= report["max_score"] and report["grader_version"] == grader.__version__
    where = subprocess.run([python, "-c", "import grader; print(grader.__file__)"], cwd=out, capture_output=True, text=True)
    assert where.stdout.startswith(str(venv)), where.stdout  # the wheel's grader, not the checkout's


def test_a_notebook_handout_is_the_template_as_cells_and_grades_like_it(tmp_path):
    out = tmp_path / "handout"
    install = "attention-grader @ git+https://example.org/course/grader@v1"
    result = CliRunner().invoke(cli, ["export-student", str(out), "--install", install, "--notebook"])
    assert result.exit_code == 0, result.output
    files = {path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file()}
    assert files == {"attention.ipynb", "README.md", "rubric.toml", ".github/workflows/classroom.yml"}
    assert "grader check attention.ipynb --rubric rubric.toml" in (out / "README.md").read_text()
    notebook = nbformat.read(out / "attention.ipynb", as_version=4)
    nbformat.validate(notebook)
    headings = [cell.source for cell in notebook.cells if cell.cell_type == "markdown" and cell.source.startswith("## `")]
    assert headings == [
        "## `softmax(x, axis=-1)`", "## `attention(Q, K, V, mask=None)`",
        "## `self_attention(X, Wq, Wk, Wv, mask=None)`", "## `causal_mask(n)`",
    ]
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    python = "\n".join(source for source in code if not source.startswith("%"))  # the last cell is magics
    assert not _statements(project_file(REFERENCE_HEAD).read_text(encoding="utf-8")) & _statements(python)
    assert install in code[-1] and code[-1].endswith("%load_ext grader\n%grade --rubric rubric.toml")
    assert {(out / name).stat().st_mode & 0o777 for name in ("attention.ipynb", "rubric.toml", "README.md")} == {0o644}

    # As handed out: every function is still to write. With the lesson's code in its cells: full marks.
    report = json.loads(CliRunner().invoke(cli, ["check", str(out / "attention.ipynb"), "--json", "-"]).stdout)
    assert report["score"] == 0 and {check["kind"] for check in report["checks"]} == {"not_implemented"}
    reference = ast.parse(project_file(REFERENCE_HEAD).read_text(encoding="utf-8"))
    written = {node.name: ast.unparse(node) for node in reference.body if isinstance(node, ast.FunctionDef)}
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("def "):
            cell.source = written[cell.source.split("(")[0].removeprefix("def ")]
    nbformat.write(notebook, tmp_path / "done.ipynb")
    report = json.loads(CliRunner().invoke(cli, ["check", str(tmp_path / "done.ipynb"), "--json", "-"]).stdout)
    assert report["score"] == 105


def test_classroom_workflow_reports_what_the_grader_found(student_bundle, tmp_path):
    out, _ = student_bundle
    workflow = yaml.safe_load((out / ".github" / "workflows" / "classroom.yml").read_text())
    # GitHub Classroom reads points only from this workflow and job name.
    assert workflow["name"] == "Autograding Tests"
    (job,) = workflow["jobs"].values()
    assert list(workflow["jobs"]) == ["run-autograding-tests"]
    steps = {step.get("id"): step for step in job["steps"]}
    reporter = next(step for step in job["steps"] if "autograding-grading-reporter" in step.get("uses", ""))
    runner = reporter["with"]["runners"]
    assert runner.isalnum()
    assert reporter["env"][f"{runner.upper()}_RESULTS"] == f"${{{{ steps.{runner}.outputs.result }}}}"

    # Run the grading step as Actions would in a student's repository.
    repository = tmp_path / "repository"
    shutil.copytree(out, repository)
    shutil.copyfile(BUGGY, repository / "attention.py")
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    run = _run_step(steps[runner]["run"], repository, output, summary)
    assert run.returncode == 0, run.stderr[-2000:]
    (line,) = output.read_text().splitlines()
    name, _, value = line.partition("=")
    assert name == "result"
    result = json.loads(base64.b64decode(value))
    public = load_rubric(out / "rubric.toml")
    assert result["max_score"] == public.max_score
    failed = [test["name"] for test in result["tests"] if test["status"] != "pass"]
    assert "attention.scaling" in failed and result["status"] == "fail"
    assert "| FAIL | `attention.scaling` |" in summary.read_text()

    # attention.py as a link (to a classmate's file, say): the step fails, saying why.
    (repository / "attention.py").unlink()
    (repository / "attention.py").symlink_to(REFERENCE)
    run = _run_step(steps[runner]["run"], repository, output, summary)
    assert run.returncode != 0 and "attention.py is a symbolic link" in run.stderr, run.stderr[-2000:]


def _run_step(script: str, repository: Path, output: Path, summary: Path) -> subprocess.CompletedProcess:
    """A workflow step's script, run as Actions runs it (bash -eo pipefail) in ``repository``."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=repository,
        env=_environment(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary)),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _pytest(submission: Path, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    shutil.copyfile(submission, folder / "attention.py")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "attention.py", *extra],
        cwd=folder,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pytest_plugin_runs_the_checks_with_pytest_output(graded_heads, tmp_path):
    run = _pytest(BUGGY, tmp_path)
    expected = graded_heads["variants__missing_scale"]
    failing = [check for check in expected.checks if check.status != "passed"]
    bonus = sum(check.bonus for check in failing)  # a bonus not earned shows as xfailed
    assert run.returncode == 1, run.stdout[-2000:]
    passed = len(expected.checks) - len(failing)
    assert f"{len(failing) - bonus} failed, {passed} passed, {bonus} xfailed" in run.stdout
    assert score_summary(expected) in run.stdout
    scaling = next(check for check in failing if check.id == "attention.scaling")
    assert scaling.feedback in run.stdout and "reproduce it:" in run.stdout
    assert "Traceback" not in run.stdout
    assert "FAILED attention.py::attention.scaling - " in run.stdout  # the check module and the check's id
    told = run.stdout.split("= what went wrong =", 1)[1]
    assert "attention's weights are those of unscaled scores" in told  # as grader check tells it
    assert sorted(path.name for path in tmp_path.iterdir()) == ["attention.py"]  # no .pytest_cache, no __pycache__

    clean = _pytest(REFERENCE, tmp_path, "-q")
    assert clean.returncode == 0 and "100/100 points (+5 bonus)" in clean.stdout


def test_pytest_plugin_keeps_the_submission_out_of_pytest(tmp_path):
    # os._exit in causal_mask would end pytest itself if the submission ran in its process.
    run = _pytest(ROOT / "tests" / "hostile" / "os_exit_in_causal_mask.py", tmp_path, "--attention-rubric",
                  str(project_file("rubrics/attention_head.toml")))
    assert run.returncode == 1, run.stdout[-2000:]
    assert "FAILED" in run.stdout and "causal_mask.values" in run.stdout and "points" in run.stdout


def test_pytest_plugin_refuses_a_missing_submission(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "nowhere.py", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=_environment(), capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 4 and "nowhere.py" in run.stderr, run.stderr


def test_pytest_plugin_shows_a_bonus_not_earned_without_failing_the_run(tmp_path):
    # Correct, but its K.T cannot take a batch axis: it fails only the bonus check.
    run = _pytest(HEADS / "correct" / "masked_fill.py", tmp_path, "-rx")
    assert run.returncode == 0, run.stdout[-2000:]
    assert "1 xfailed" in run.stdout and "failed" not in run.stdout.replace("xfailed", "")
    assert "XFAIL extension.py::extension.batched - bonus not earned: attention() raised" in run.stdout
    assert "= bonus not earned =" in run.stdout and "reproduce it:" in run.stdout
    assert "100/100 points (attention_head)" in run.stdout


PRAIRIELEARN_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "prairielearn_results.schema.json").read_text())


@pytest.fixture(scope="module")
def prairielearn_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prairielearn") / "bundle"
    result = CliRunner().invoke(cli, ["prairielearn-bundle", str(out), "--image", "course/attention-grader:1"])
    assert result.exit_code == 0, result.output
    return out


def _fake_grade(bundle: Path, root: Path, student: dict[str, bytes | Path], **environment: str):
    """Lay out /grade as PrairieLearn does (the student's files in student/) and run the
    entrypoint as it does; the run and results.json (None when there is none)."""
    (root / "student").mkdir(parents=True, exist_ok=True)
    for name, content in student.items():
        _put(root / "student" / name, content)
    run = subprocess.run(
        [str(bundle / "entrypoint")],
        env=_environment(GRADE_ROOT=str(root), GRADER_PYTHON=sys.executable, **environment),
        capture_output=True,
        text=True,
        timeout=600,
    )
    path = root / "results" / "results.json"
    if not path.exists():
        return run, None
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(path.read_bytes()) <= 1_000_000
    results = json.loads(path.read_text())
    jsonschema.validate(results, PRAIRIELEARN_SCHEMA)
    return run, results


def test_prairielearn_bundle_layout(prairielearn_folder, tmp_path):
    folder = prairielearn_folder
    names = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}
    assert {"Dockerfile", "entrypoint", "info.json", "requirements.txt", "rubric.toml", "grader/cli/__init__.py"} <= names
    assert f"grader/_bundled/{REFERENCE_HEAD}" in names and not any("__pycache__" in name for name in names)
    assert os.access(folder / "entrypoint", os.X_OK)
    assert subprocess.run(["bash", "-n", str(folder / "entrypoint")]).returncode == 0
    info = json.loads((folder / "info.json").read_text())
    options = info["externalGradingOptions"]
    assert info["gradingMethod"] == "External" and options["enabled"] is True
    assert options["image"] == "course/attention-grader:1"
    assert isinstance(options["timeout"], int) and 0 < options["timeout"] <= 600  # PrairieLearn's limit
    dockerfile = (folder / "Dockerfile").read_text()
    lines = dockerfile.splitlines()
    (workdir,) = [line.split()[1] for line in lines if line.startswith("WORKDIR ")]
    assert options["entrypoint"] == f"{workdir}/entrypoint"
    assert f"FROM python:{sys.version_info.major}.{sys.version_info.minor}-" in dockerfile
    assert "bubblewrap" in dockerfile and f"grader check grader/_bundled/{REFERENCE_HEAD}" in dockerfile
    for line in lines:  # everything the image copies is in the folder
        if line.startswith("COPY "):
            assert all((folder / source).exists() for source in line.split()[1:-1]), line
    again = CliRunner().invoke(cli, ["prairielearn-bundle", str(folder)])
    assert again.exit_code == 2 and "not an empty folder" in again.output
    bad = CliRunner().invoke(cli, ["prairielearn-bundle", str(tmp_path / "new"), "--image", "Not An Image"])
    assert bad.exit_code == 2 and not (tmp_path / "new").exists()


def test_prairielearn_entrypoint_grades_real_heads(prairielearn_folder, graded_heads, tmp_path):
    _, full = _fake_grade(prairielearn_folder, tmp_path / "reference", {"attention.py": REFERENCE.read_bytes()})
    assert full["gradable"] is True and full["score"] == 1.0
    assert all(test["points"] >= test["max_points"] for test in full["tests"])
    _, buggy = _fake_grade(prairielearn_folder, tmp_path / "buggy", {"attention.py": BUGGY.read_bytes()})
    expected = graded_heads["variants__missing_scale"]
    assert buggy["gradable"] is True and buggy["score"] == expected.score / expected.max_score < 1
    assert [test["points"] for test in buggy["tests"]] == [check.points for check in expected.checks]


def test_prairielearn_entrypoint_explains_what_it_cannot_grade(prairielearn_folder, tmp_path):
    cases = {
        "missing": ({"attn.py": REFERENCE.read_bytes()}, "no file named attention.py"),
        "too_large": ({"attention.py": b"#" * (2 << 20)}, "at most"),
        "syntax_error": ({"attention.py": (ROOT / "tests" / "broken" / "syntax_error.py").read_bytes()}, "SyntaxError"),
    }
    for name, (files, says) in cases.items():
        _, results = _fake_grade(prairielearn_folder, tmp_path / name, files)
        assert results["gradable"] is False and "score" not in results, name
        (error,) = results["format_errors"]
        assert says in error and str(tmp_path) not in error, error


def test_the_prairielearn_image_records_no_example_drawn_from_a_secret(prairielearn_folder, tmp_path):
    """The image's build step, run where GRADER_SECRET happens to be set, records the public
    examples alone: nothing a pushed image holds is drawn from the course secret."""
    dockerfile = (prairielearn_folder / "Dockerfile").read_text()
    assert "secret.txt" not in dockerfile and "--secret-file" not in dockerfile
    record = next(line for line in dockerfile.splitlines() if "grader check grader/_bundled" in line)
    assert "GRADER_SECRET= " in record
    cache = tmp_path / "cache"
    run = subprocess.run(
        ["bash", "-c", f"GRADER_SECRET= {sys.executable} -m grader check grader/_bundled/{REFERENCE_HEAD} "
                       "--rubric rubric.toml --sandbox process >/dev/null"],
        cwd=prairielearn_folder, capture_output=True, text=True, timeout=600,
        env=_environment(GRADER_SECRET=COURSE_SECRET, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(prairielearn_folder)),
    )
    assert run.returncode == 0, run.stderr
    labels = {path.name for path in (cache / "attention-grader" / "examples").glob("*/*")}
    assert labels == {"public"}, labels
    for path in prairielearn_folder.rglob("*"):
        assert not path.is_file() or COURSE_SECRET.encode() not in path.read_bytes(), path


def test_the_prairielearn_entrypoint_grades_with_the_secret_the_question_sets(prairielearn_folder, tmp_path):
    graded = {
        name: _fake_grade(prairielearn_folder, tmp_path / name, {"attention.py": BUGGY.read_bytes()}, **environment)[1]
        for name, environment in (("public", {"GRADER_SECRET": ""}), ("course", {"GRADER_SECRET": COURSE_SECRET}))
    }
    scaling = {
        name: next(t for t in results["tests"] if t["name"].startswith("attention.scaling")) for name, results in graded.items()
    }
    assert scaling["course"]["output"] and scaling["course"]["output"] != scaling["public"]["output"], scaling
    assert COURSE_SECRET not in json.dumps(graded["course"])


def test_prairielearn_entrypoint_never_follows_a_link(prairielearn_folder, tmp_path):
    secret = tmp_path / "container.env"
    secret.write_text("TOKEN=sk_live_NOT_FOR_STUDENTS\n")
    run, results = _fake_grade(prairielearn_folder, tmp_path / "grade", {"attention.py": secret})
    assert results is not None and results["gradable"] is False, run.stderr
    assert any("symbolic link" in error for error in results["format_errors"]), results
    assert "sk_live" not in json.dumps(results)


def test_prairielearn_entrypoint_prefers_the_python_file_to_a_notebook(prairielearn_folder, tmp_path):
    _, both = _fake_grade(prairielearn_folder, tmp_path / "both", {
        "attention.py": REFERENCE.read_bytes(), "attention.ipynb": b'{"cells": [], "nbformat": 4}',
    })
    assert both["score"] == 1.0
    run, results = _fake_grade(prairielearn_folder, tmp_path / "notebook", {"attention.ipynb": b'{"cells": [], "nbformat": 4}'})
    assert run.stdout.startswith(str(tmp_path / "notebook" / "student" / "attention.ipynb"))  # the text report
    assert results["gradable"] is False and "has no code cells" in results["format_errors"][0]


def test_prairielearn_entrypoint_leaves_no_result_when_the_grader_fails(prairielearn_folder, tmp_path):
    broken = tmp_path / "bundle"
    shutil.copytree(prairielearn_folder, broken)
    (broken / "rubric.toml").write_text("checks = [\n")
    root = tmp_path / "grade"
    (root / "results").mkdir(parents=True)
    (root / "results" / "results.json").write_text('{"score": 1}')  # a stale result is not this run's
    run, results = _fake_grade(broken, root, {"attention.py": REFERENCE.read_bytes()})
    assert run.returncode != 0 and results is None  # PrairieLearn: "Grading failed!", the attempt not counted
    assert "rubric" in run.stderr


def test_prairielearn_entrypoint_grades_in_a_plain_process_without_bubblewrap(prairielearn_folder, tmp_path):
    shims = tmp_path / "bin"  # a bwrap that cannot start, as in a container without user namespaces
    shims.mkdir()
    (shims / "bwrap").write_text("#!/bin/sh\nexit 1\n")
    (shims / "bwrap").chmod(0o755)
    path = f"{shims}{os.pathsep}{BIN}{os.pathsep}{os.environ['PATH']}"
    run, results = _fake_grade(prairielearn_folder, tmp_path / "grade", {"attention.py": REFERENCE.read_bytes()}, PATH=path)
    assert results["score"] == 1.0
    assert "graded without the bubblewrap sandbox" in run.stdout  # the text report, for the job's log
    # Told to use bubblewrap where it cannot start, the grader refuses to run: its failure, not the file's.
    refused, results = _fake_grade(prairielearn_folder, tmp_path / "refused", {"attention.py": REFERENCE.read_bytes()},
                                   PATH=path, GRADER_SANDBOX="bubblewrap")
    assert refused.returncode == 2 and results is None, refused.stderr
