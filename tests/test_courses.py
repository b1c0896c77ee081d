"""A course's own assignments, outside the grader: loaded from a folder or an installed
package, graded on every route, validated before students see them, and written from a
skeleton. The course under tests/courses/ is written as a TA would write one, with the
public authoring surface (grader.authoring) only."""

from __future__ import annotations

import ast
import functools
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import ROOT, VARIANTS

from grader import assignments
from grader.assignments import outside
from grader.assignments.rubric import chosen_rubric
from grader.cli import cli
from grader.errors import UsageError

COURSES = ROOT / "tests" / "courses"
LAYER_NORM = COURSES / "layer_norm"
EXTENSION = COURSES / "attention_plus"
HEADS = COURSES / "layer_norm_heads"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return result.exit_code, result.output


def _report(*args: str) -> dict:
    code, output = _invoke("check", *args, "--format", "json")
    assert code == 0, output
    return json.loads(output)


def _named(report: dict) -> set[str]:
    return {entry["id"] for entry in report["diagnoses"] if entry["id"] not in ("observed", "unfinished")}


# -- loading -------------------------------------------------------------------------------


def test_a_folder_is_loaded_under_a_name_of_its_own_and_found_by_its_name_after(tmp_path, monkeypatch):
    monkeypatch.setattr(outside, "_BY_NAME", dict(outside._BY_NAME))  # the copy below is gone after this test
    loaded = assignments.get(str(LAYER_NORM))
    assert loaded.name == "layer_norm" and loaded.folder == LAYER_NORM.resolve()
    assert loaded.check_packages == (f"grader_course_{loaded.digest}.checks",)
    assert "layer_norm" not in sys.modules  # never under its folder's own name
    assert assignments.get("layer_norm") is loaded and assignments.known("layer_norm")
    # The same files elsewhere are the same package; another course's same-named folder is refused.
    copy = tmp_path / "elsewhere" / "layer_norm"
    shutil.copytree(LAYER_NORM, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert assignments.get(str(copy)).check_packages == loaded.check_packages
    # Changed, it is another assignment of the same name: its digest tells the two apart.
    (copy / "checks" / "row_stats.py").write_text((copy / "checks" / "row_stats.py").read_text() + "\n# changed\n")
    changed = assignments.get(str(copy))
    assert changed.digest != loaded.digest and changed.check_packages != loaded.check_packages
    assert assignments.get(loaded.cache_name) is loaded and assignments.get(changed.cache_name) is changed
    assert assignments.get("layer_norm") is changed  # the name alone: the one loaded last


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "has no __init__.py defining ASSIGNMENT"),
        ({"__init__.py": "X = 1\n"}, "must define ASSIGNMENT, an Assignment"),
        ({"__init__.py": "import numpy\n1 / 0\n"}, r"its __init__.py failed: ZeroDivisionError: division by zero \(__init__.py, line 2\)"),
        (
            {"__init__.py": "from grader.authoring import extend\nASSIGNMENT = extend('attention_head', name='attention_head')\n"},
            "as a shipped assignment is",
        ),
        (
            {
                "__init__.py": "from grader.authoring import extend\nASSIGNMENT = extend('attention_head', name='clash')\n",
                "checks/softmax.py": "def test_more(submission):\n    pass\n",
            },
            "checks/softmax.py has the name of a check module",
        ),
        (
            {
                "__init__.py": "from grader.authoring import extend\nASSIGNMENT = extend('attention_head', name='absolute')\n",
                "calls.py": "X = 1\n",
                "checks/course.py": "from course.calls import X\n",
            },
            r"checks/course.py failed: ModuleNotFoundError: No module named 'course' \(course.py, line 1\); "
            "an assignment's modules import each other relatively",
        ),
        (
            {
                "__init__.py": "from grader.authoring import extend\n"
                "def _mistakes():\n    from .mistakes import KNOWN\n    return KNOWN\n"
                "ASSIGNMENT = extend('attention_head', name='slip', mistakes=_mistakes)\n",
                "mistakes.py": "KNOWN = Mistakes(probes={}, reference={}, mistakes=())\n",
            },
            r"its known mistakes failed: NameError: name 'Mistakes' is not defined \(mistakes.py, line 1\)",
        ),
    ],
)
def test_a_broken_assignment_folder_is_refused_in_one_sentence(tmp_path, files, message):
    folder = tmp_path / "course"
    folder.mkdir()
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    code, output = _invoke("check", "--assignment", folder, ROOT / "reference" / "attention.py")
    assert code == 2 and len(output.strip().splitlines()) == 1, output
    assert __import__("re").search(message, output), output


def test_an_unknown_name_and_a_missing_folder_are_told_apart():
    with pytest.raises(UsageError, match="no assignment is called 'nope': the grader knows attention_head, multi_head"):
        assignments.get("nope")
    with pytest.raises(UsageError, match="--assignment ./nope: no such folder"):
        assignments.get("./nope")


def _installed_course(site: Path) -> Path:
    """The course's folder as an installed package that declares it (a dist-info with its
    entry point), in the folder ``site`` to put on the path."""
    shutil.copytree(LAYER_NORM, site / "course_pkg" / "layer_norm", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "course_pkg" / "__init__.py").write_text("")
    info = site / "course_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: course-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[grader.assignments]\nlayer_norm = course_pkg.layer_norm\n")
    return site


def test_an_installed_package_is_found_by_its_entry_point(tmp_path, monkeypatch):
    site = _installed_course(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(outside, "_BY_NAME", {})  # as a new process: nothing loaded yet
    # As a student's `grader check layer_norm.py --rubric rubric.toml` finds it: by the file's
    # name, and by the rubric's.
    found = assignments.of_file(Path("layer_norm.py"))
    assert found is not None and found.name == "layer_norm" and found.spec == "layer_norm"
    assert found.check_packages == ("course_pkg.layer_norm.checks",)
    assert assignments.get("layer_norm") is found
    from grader.assignments.rubric import load_rubric

    assert load_rubric(LAYER_NORM / "rubric.toml").assignment == found.cache_name
    rubric = chosen_rubric(None, "layer_norm")
    from grader.engine.grading import grade_file
    from grader.sandbox import Limits

    report = grade_file(LAYER_NORM / "solution.py", rubric, Limits(isolation="process"))
    assert report.score == report.max_score == 100


# -- every route ---------------------------------------------------------------------------


@functools.cache
def _heads() -> dict[str, str]:
    """Each test head and the mistake its first line says it makes ('none': correct)."""
    return {path.stem: path.read_text().splitlines()[0].split(":", 1)[1].strip() for path in sorted(HEADS.glob("*.py"))}


@pytest.mark.parametrize("head", sorted(_heads()))
def test_check_grades_the_courses_heads_and_names_only_their_mistakes(head):
    report = _report(HEADS / f"{head}.py", "--assignment", LAYER_NORM)
    expected = {name for name in _heads()[head].replace(",", " ").split() if name not in ("none", "unfinished")}
    assert _named(report) == expected, report["diagnoses"]
    assert (report["score"] == report["max_score"]) == head.startswith("correct"), report["score"]


def test_grade_local_jobs_and_a_resumed_batch(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for head in ("correct_loops", "eps_outside", "half_written"):
        shutil.copyfile(HEADS / f"{head}.py", folder / f"{head}.py")
    out = tmp_path / "out"
    code, output = _invoke("grade", folder, "--out", out, "--assignment", LAYER_NORM, "--jobs", "2")
    assert code == 0, output
    reports = {path.stem: json.loads(path.read_text()) for path in out.glob("*.json") if path.stem != "summary"}
    assert reports["correct_loops"]["score"] == 100 and reports["eps_outside"]["score"] < 100
    assert reports["eps_outside"]["assignment"].startswith("layer_norm-")  # named with its files' digest
    # The batch graded a snapshot of the folder; reports name the course's own rubric file, which outlives it.
    rubric_file = str((LAYER_NORM / "rubric.toml").resolve())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rubric"]["path"] == reports["eps_outside"]["rubric"]["path"] == rubric_file
    code, output = _invoke("grade", folder, "--out", out, "--assignment", LAYER_NORM)
    assert code == 0 and "graded 0 submissions" in output and "(3 kept from an earlier run)" in output, output


def test_the_pytest_plugin_runs_a_courses_checks_and_writes_nothing_into_its_folders(tmp_path):
    """Run from inside a copy of the course, as a TA tries it: the checks named by their ids,
    the diagnoses told as grader check tells them, and nothing left in either folder."""
    course = tmp_path / "layer_norm"
    shutil.copytree(LAYER_NORM, course, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(HEADS / "eps_outside.py", tmp_path / "layer_norm.py")
    before = sorted(tmp_path.rglob("*"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "../layer_norm.py", "--attention-assignment", "."],
        cwd=course, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 1 and "points (layer_norm)" in run.stdout, run.stdout[-2000:]
    assert "FAILED checks/layer_norm.py::layer_norm." in run.stdout and "Traceback" not in run.stdout
    assert "= what went wrong =" in run.stdout and "eps" in run.stdout.split("= what went wrong =", 1)[1]
    assert sorted(tmp_path.rglob("*")) == before


def test_the_bundles_carry_the_courses_folder_and_grade_with_it(tmp_path):
    zipped = tmp_path / "autograder.zip"
    code, output = _invoke("gradescope-bundle", zipped, "--assignment", LAYER_NORM)
    assert code == 0, output
    root = tmp_path / "autograder"
    with zipfile.ZipFile(zipped) as archive:
        names = set(archive.namelist())
        archive.extractall(root / "source")
    assert "assignment/layer_norm/checks/layer_norm.py" in names and "assignment/layer_norm/solution.py" in names
    with zipfile.ZipFile(zipped) as archive:  # the course's reference: root's alone, never the submission's uid
        assert all(info.external_attr >> 16 == 0o600 for info in archive.infolist() if info.filename.startswith("assignment/"))
    assert "chmod -R go-rwx assignment" in (root / "source" / "setup.sh").read_text()
    (root / "submission").mkdir()
    shutil.copyfile(HEADS / "eps_outside.py", root / "submission" / "layer_norm.py")
    environment = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
                   "GRADER_PYTHON": sys.executable, "HOME": str(tmp_path)}
    for script in ("setup.sh", "run_autograder"):
        assert "--assignment assignment/layer_norm" in (root / "source" / script).read_text()
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=environment, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert 0 < results["score"] < 100 and any(test["status"] == "failed" for test in results["tests"])

    bundle = tmp_path / "prairielearn"
    code, output = _invoke("prairielearn-bundle", bundle, "--assignment", LAYER_NORM, "--image", "course/ln:1")
    assert code == 0, output
    dockerfile = (bundle / "Dockerfile").read_text()
    assert "COPY assignment ./assignment\nRUN chmod -R go-rwx assignment" in dockerfile
    assert "check assignment/layer_norm/solution.py" in dockerfile
    (tmp_path / "grade" / "student").mkdir(parents=True)
    shutil.copyfile(HEADS / "correct_loops.py", tmp_path / "grade" / "student" / "layer_norm.py")
    run = subprocess.run([str(bundle / "entrypoint")], capture_output=True, text=True, timeout=600,
                         env={**environment, "GRADE_ROOT": str(tmp_path / "grade")})
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads((tmp_path / "grade" / "results" / "results.json").read_text())["score"] == 1.0


def test_export_student_gives_the_template_never_the_courses_folder(tmp_path):
    out = tmp_path / "student"
    code, output = _invoke("export-student", out, "--assignment", LAYER_NORM, "--install", "course-pkg==1.0")
    assert code == 0, output
    files = {path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file()}
    assert {"layer_norm.py", "README.md", "rubric.toml", ".github/workflows/classroom.yml"} <= files
    assert "solution.py" not in files and not any(name.startswith("checks/") for name in files)
    template = ast.parse((out / "layer_norm.py").read_text())
    assert {node.name for node in template.body if isinstance(node, ast.FunctionDef)} >= {"row_stats", "layer_norm", "rms_norm"}
    workflow = (out / ".github/workflows/classroom.yml").read_text()
    assert 'grader check "$submission" --assignment layer_norm' in workflow and "course-pkg==1.0" in workflow
    assert "grader check layer_norm.py --assignment layer_norm" in (out / "README.md").read_text()


def test_the_kernel_session_grades_a_courses_assignment():
    from grader.kernel.session import Session

    session = Session(warn=lambda message: None)
    try:
        cells = [(HEADS / "correct_vectorised.py").read_text()]
        report = session.grade(cells, function=None, rubric_path=None, assignment=str(LAYER_NORM))
        assert report.score == report.max_score == 100
        only = session.grade(cells, function="rms_norm", rubric_path=None, assignment=str(LAYER_NORM))
        assert {check.id.split(".")[0] for check in only.checks} == {"rms_norm"}
    finally:
        session.close()


@pytest.mark.filterwarnings("ignore")
def test_dask_workers_receive_the_courses_folder(tmp_path):
    distributed = pytest.importorskip("distributed")
    from grader.batch import grade_folder
    from grader.batch.executors import cluster
    from grader.sandbox import Limits

    folder = tmp_path / "class"
    folder.mkdir()
    for head in ("correct_reshape", "swapped"):
        shutil.copyfile(HEADS / f"{head}.py", folder / f"{head}.py")
    rubric = chosen_rubric(None, str(LAYER_NORM))
    limits = Limits(isolation="process")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        client, _ = cluster.connect(cluster.Cluster(local.scheduler_address), limits)
        with client:
            reports = grade_folder(folder, tmp_path / "out", rubric, limits,
                                   executor=functools.partial(cluster.reports, client=client))

            def unpacked(dask_worker):
                return [path.name for path in (dask_worker.plugins[cluster.PLUGIN_NAME]._folder / "assignments").glob("*/*")]

            # The worker graded with the folder it received, unpacked in its own place.
            assert list(client.run(unpacked).values()) == [["layer_norm"]]
    scores = {report.student: report.score for report in reports}
    assert scores["correct_reshape"] == 100 and scores["swapped"] < 100


# -- extending a shipped assignment ----------------------------------------------------------


def test_a_course_extends_the_shipped_assignment_with_its_own_check_and_example(tmp_path):
    report = _report(ROOT / "reference" / "attention.py", "--assignment", EXTENSION)
    ids = [check["id"] for check in report["checks"]]
    assert "course.identity_values_give_the_weights" in ids and "softmax.rows_sum_to_one" in ids
    assert report["score"] == 110 and report["max_score"] == 105  # with the shipped bonus check
    buggy = _report(VARIANTS / "missing_scale.py", "--assignment", EXTENSION)
    assert "missing_scale" in _named(buggy) or buggy["diagnoses"], buggy["diagnoses"]
    out = tmp_path / "student"
    code, output = _invoke("export-student", out, "--assignment", EXTENSION, "--notebook", "--install", "course-pkg")
    assert code == 0, output
    assert "the course's example" in (out / "attention.ipynb").read_text()
    readme = (out / "README.md").read_text()
    # The shipped handout's own commands name the course's assignment too, not only the section added below them.
    assert "grader check attention.ipynb --assignment attention_plus\n" in readme
    assert "grader check attention.ipynb\n" not in readme and "attention.ipynb` runs" not in readme


def test_a_courses_own_mistake_is_told_beside_the_shipped_ones(tmp_path):
    """extend(..., more_mistakes=...): the course's mistake is named where the shipped
    catalogue had only an observed sentence, and the shipped mistakes are still named."""
    head = tmp_path / "values_t.py"
    head.write_text((ROOT / "reference" / "attention.py").read_text().replace("return A @ V, A", "return A @ V.T, A"))
    assert "A @ V.T" in head.read_text()
    assert _named(_report(head, "--assignment", EXTENSION)) == {"attention_values_transposed"}
    assert _named(_report(head)) == set()  # the shipped assignment alone has no such id
    missing = _report(VARIANTS / "missing_scale.py", "--assignment", EXTENSION)
    assert _named(missing) == {"missing_scale"}
    assert _named(_report(ROOT / "reference" / "attention.py", "--assignment", EXTENSION)) == set()


# -- validate and new-assignment -------------------------------------------------------------


def test_validate_passes_the_courses_assignment():
    code, output = _invoke("validate", LAYER_NORM, "--mutants", "40", "--sandbox", "process")
    assert code == 0, output
    assert "the reference gets 100/100" in output and "the template gets 0/100" in output
    assert output.count("  ok    mistake ") >= 6 and "mutation score" in output
    assert "same grade with one job and with 2" in output


def test_validate_fails_a_mistake_no_check_catches_and_a_wrong_reference(tmp_path):
    broken = tmp_path / "layer_norm"
    shutil.copytree(LAYER_NORM, broken, ignore=shutil.ignore_patterns("__pycache__"))
    mistakes = broken / "mistakes.py"
    source = mistakes.read_text()
    first_check = next(line for line in (broken / "rubric.toml").read_text().splitlines() if line.startswith("id = "))
    wrong_check = first_check.split('"')[1]
    # Every mistake now claims the first check of the rubric catches it: most do not.
    source = __import__("re").sub(r"caught_by=\([^)]*\)", f'caught_by=("{wrong_check}",)', source)
    mistakes.write_text(source)
    solution = broken / "solution.py"
    solution.write_text(solution.read_text().replace("ddof=0", "ddof=1") + "\n")
    code, output = _invoke("validate", broken, "--mutants", "0", "--sandbox", "process")
    assert code == 1, output
    assert "FAIL  the reference gets" in output and "fails validation" in output


def test_new_assignment_writes_a_skeleton_that_validates(tmp_path):
    reference = tmp_path / "scaled.py"
    reference.write_text(
        'import numpy as np\n\n\ndef scaled(X, factor=2.0):\n    """X times factor."""\n    return np.asarray(X) * factor\n\n\n'
        'def centred(X):\n    """Each row minus its mean."""\n    return X - X.mean(axis=-1, keepdims=True)\n'
    )
    code, output = _invoke("new-assignment", "scaling", tmp_path / "course", "--reference", reference)
    assert code == 0, output
    folder = tmp_path / "course" / "scaling"
    template = (folder / "template.py").read_text()
    assert "def scaled(X, factor=2.0):" in template and template.count("raise NotImplementedError") == 2
    code, output = _invoke("validate", folder, "--mutants", "10", "--sandbox", "process")
    assert code == 0, output
    assert "the reference gets 100/100" in output and "the template gets 0/100" in output
    code, output = _invoke("new-assignment", "scaling", tmp_path / "course", "--reference", reference)
    assert code == 2 and "exists already" in output


def test_new_assignment_draws_an_argument_the_solution_annotates_as_a_number(tmp_path):
    """A number is drawn as one where the solution says it is (`k: int`), so the skeleton of a
    top_k grades its own solution to full marks; one left unannotated is drawn as a matrix."""
    reference = tmp_path / "ranks.py"
    reference.write_text(
        "import numpy as np\n\n\ndef top_k(scores, k: int):\n    if k > scores.shape[1]:\n"
        "        raise ValueError('k is larger than a row')\n    return -np.sort(-scores, axis=1)[:, :k]\n\n\n"
        "def sharpened(x, t: float, stable: bool):\n    z = x / t - (x / t).max(axis=-1, keepdims=True) * stable\n"
        "    return np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)\n"
    )
    code, output = _invoke("new-assignment", "ranks", tmp_path / "course", "--reference", reference)
    assert code == 0, output
    folder = tmp_path / "course" / "ranks"
    assert "k = draw(sides(min(rows, cols)))" in (folder / "checks" / "top_k.py").read_text()
    assert "Probe('top_k', (EXAMPLE, 1, ))" in (folder / "mistakes.py").read_text()
    code, output = _invoke("validate", folder, "--mutants", "0", "--sandbox", "process")
    assert code == 0 and "the reference gets 100/100" in output, output
    reference.write_text(reference.read_text().replace("k: int", "k"))
    code, output = _invoke("new-assignment", "unannotated", tmp_path / "course", "--reference", reference)
    code, output = _invoke("validate", tmp_path / "course" / "unannotated", "--mutants", "0", "--sandbox", "process")
    assert code == 1 and "FAIL  the reference gets" in output, output


def test_validate_lists_the_mutants_no_check_kills_with_their_diff(tmp_path):
    reference = tmp_path / "solution.py"
    reference.write_text("import numpy as np\n\n\ndef centred(X):\n    return X - X.mean(axis=-1, keepdims=True)\n")
    code, output = _invoke("new-assignment", "weak", tmp_path, "--reference", reference)
    assert code == 0, output
    # A check of the shape alone: most mutants of the reference keep full marks.
    (tmp_path / "weak" / "checks" / "centred.py").write_text(
        "from grader.authoring.checks import check, expect\nimport numpy as np\n\n\n@check()\n"
        "def test_matches_reference(submission):\n    X = np.arange(6.0).reshape(2, 3)\n"
        "    expect.shape(expect.array(submission.centred(X), 'centred(X)'), (2, 3), 'centred(X)')\n"
    )
    code, output = _invoke("validate", tmp_path / "weak", "--mutants", "20", "--min-mutation-score", "90", "--sandbox", "process")
    assert code == 1, output
    assert "FAIL  mutation score" in output and "hole: " in output
    assert "-    return X - X.mean(axis=-1, keepdims=True)" in output and "+    return X " in output


def test_validate_says_why_a_mistake_is_never_named(tmp_path):
    reference = tmp_path / "solution.py"
    reference.write_text("import numpy as np\n\n\ndef clipped(X):\n    return np.clip(X, -10.0, 10.0)\n")
    code, output = _invoke("new-assignment", "clip", tmp_path, "--reference", reference)
    assert code == 0, output
    (tmp_path / "clip" / "mistakes.py").write_text(
        "import numpy as np\nfrom grader.authoring.mistakes import Mistake, Mistakes, Probe\n"
        "from .calls import EXAMPLE, FUNCTIONS\n\n\n"
        "def clipped_at_100(X):\n    return np.clip(X, -100.0, 100.0)\n\n\n"
        "def never_clipped(X):\n    return X\n\n\n"
        "KNOWN = Mistakes(probes={'clipped': [Probe('clipped', (EXAMPLE,))]}, reference=FUNCTIONS, mistakes=(\n"
        "    Mistake('clip_100', 'clipped clips at 100.', 'clipped', variants=(clipped_at_100,),\n"
        "            caught_by=('clipped.matches_refrence',)),\n"
        "    Mistake('no_clip', 'clipped does not clip.', 'clipped', variants=(never_clipped,)),\n"
        "))\n"
    )
    code, output = _invoke("validate", tmp_path / "clip", "--mutants", "0", "--sandbox", "process")
    assert code == 1, output
    assert "clipped.matches_refrence is not a check of the rubric (caught_by)" in output
    assert "passes: it is meant" not in output.split("clip_100")[1].split("mistake no_clip")[0]
    assert "its variant answers every probe of clipped as the reference does, within the diagnosis's tolerance" in output
    assert "warn  mistake no_clip names no check in caught_by" in output
    assert "warn  calls.py, line" in output and "TODO" in output


@pytest.mark.bubblewrap
def test_a_submission_in_the_sandbox_cannot_read_the_courses_reference(tmp_path):
    correct = (HEADS / "correct_vectorised.py").read_text()
    reader = tmp_path / "layer_norm.py"
    # Right only where the course's folder cannot be seen: a head that could read the
    # reference would lose the points of row_stats.
    reader.write_text(
        correct + f"\n\nimport os as _os\n_right_row_stats = row_stats\n\n\ndef row_stats(X):\n"
        f"    if _os.path.exists({str(LAYER_NORM / 'solution.py')!r}) or _os.path.exists({str(LAYER_NORM)!r}):\n"
        "        return None\n    return _right_row_stats(X)\n"
    )
    report = _report(reader, "--assignment", LAYER_NORM, "--sandbox", "bubblewrap")
    assert report["sandbox"] == "bubblewrap" and report["score"] == 100, [c["feedback"] for c in report["checks"] if c["feedback"]]


def test_the_classroom_step_grades_a_student_repository_with_the_installed_course(tmp_path):
    yaml = pytest.importorskip("yaml")
    import base64
    import os

    out = tmp_path / "student"
    code, output = _invoke("export-student", out, "--assignment", LAYER_NORM, "--install", "course-pkg==1.0")
    assert code == 0, output
    workflow = yaml.safe_load((out / ".github" / "workflows" / "classroom.yml").read_text())
    (job,) = workflow["jobs"].values()
    step = next(step for step in job["steps"] if step.get("id") == "attention")
    repository = tmp_path / "repository"
    shutil.copytree(out, repository)
    shutil.copyfile(HEADS / "eps_outside.py", repository / "layer_norm.py")
    site = _installed_course(tmp_path / "site")
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS"))},
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(site),  # as `pip install course-pkg` leaves it
        "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
    }
    run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=repository,
                         env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(base64.b64decode((tmp_path / "output").read_text().split("=", 1)[1]))
    failed = {test["name"] for test in result["tests"] if test["status"] != "pass"}
    assert "layer_norm.uses_eps" in failed and result["status"] == "fail"


def _helper_scale():
    return 2.0


def test_a_variant_is_written_as_the_function_it_stands_in_for_or_told_why_not():
    from grader.validation.submissions import variant_source

    def wrong_softmax(x, axis=-1):
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)

    written = variant_source(wrong_softmax, "softmax", {"np"} | set(dir(__builtins__)))
    assert written.startswith("def softmax(x, axis=-1):") and "wrong_softmax" not in written
    assert variant_source(lambda x: x, "softmax", set()).why.endswith("is not a top-level def (a lambda, or made by another function)")

    def uses_a_helper(x):
        return x * _helper_scale()

    assert "uses _helper_scale, which the reference's file does not define" in variant_source(uses_a_helper, "softmax", {"np"}).why


BLOCKED = COURSES / "attention_blocked"


def test_a_courses_convention_grades_its_own_heads_and_shows_calls_as_they_were_sent():
    course = _report(BLOCKED / "solution.py", "--assignment", BLOCKED)  # True = blocked
    assert course["score"] == course["max_score"], [c["feedback"] for c in course["checks"] if c["status"] != "passed"]
    lesson = _report(ROOT / "reference" / "attention.py", "--assignment", BLOCKED)  # True = may attend
    failed = {check["id"]: check for check in lesson["checks"] if check["status"] != "passed"}
    assert {"mask.no_future_leakage", "mask.arbitrary", "blocked.causal_mask_blocks_the_future"} <= set(failed)
    assert "attention.inputs_unchanged" not in failed  # the mask it left is read back in the lesson's convention
    assert not any(check.startswith(("softmax.", "attention.s", "attention.w")) for check in failed)
    # The call shown is the one the student's code received: the causal mask of one token,
    # in the course's convention, blocks nothing.
    assert "mask = np.array([[False]], dtype=bool)" in failed["mask.no_future_leakage"]["counterexample"]["repro"]
    # The lesson's head reads the course's masks inverted: that mistake is worded in the
    # lesson's convention, so nothing is told of it.
    assert lesson["diagnoses"] == []


def test_under_a_convention_only_the_sentences_that_speak_of_it_are_not_told(tmp_path):
    unscaled = tmp_path / "unscaled.py"
    unscaled.write_text((BLOCKED / "solution.py").read_text().replace(" / np.sqrt(d_k)", ""))
    told = _report(unscaled, "--assignment", BLOCKED)["diagnoses"]
    assert [entry["id"] for entry in told] == ["missing_scale"], told
    mutates = tmp_path / "mutates.py"
    mutates.write_text((BLOCKED / "solution.py").read_text().replace(
        "    scores = (Q @ K.T) / np.sqrt(d_k)", "    Q /= np.sqrt(d_k)\n    scores = Q @ K.T"
    ))
    # Q changed in place: told so, and of Q alone (the sentence names what changed).
    told = _report(mutates, "--assignment", BLOCKED)["diagnoses"]
    assert [entry["id"] for entry in told] == ["mutates_inputs"] and "the caller's Q is different" in told[0]["message"], told


def test_a_convention_turns_only_the_arguments_it_names():
    from grader.authoring import Convention, Function

    flipped = Convention("True = blocked", {"attention": ("mask",)}, to_course=np.logical_not, to_lesson=np.logical_not)
    attention = Function("attention", ("Q", "K", "V", "mask"), "attention(Q, K, V, mask=None)")
    mask = np.array([[True, False]])
    args, kwargs = flipped.sent(attention, [1, 2, 3, mask], {})
    assert args[:3] == [1, 2, 3] and (args[3] == ~mask).all()
    args, kwargs = flipped.sent(attention, [1, 2, 3], {"mask": mask})
    assert args == [1, 2, 3] and (kwargs["mask"] == ~mask).all()
    assert flipped.sent(attention, [1, 2, 3, None], {})[0][3] is None
    softmax = Function("softmax", ("x", "axis"), "softmax(x, axis=-1)")
    assert flipped.sent(softmax, [mask], {})[0][0] is mask
    assert (flipped.read_back(attention, [1, 2, 3, ~mask])[3] == mask).all()


def test_validate_passes_a_course_with_its_own_convention():
    code, output = _invoke("validate", BLOCKED, "--mutants", "0", "--sandbox", "process")
    assert code == 0, output
    assert "the reference gets 101/101" in output and "follows the course's convention, where no mistake is named" in output


def test_the_pytest_plugin_runs_the_courses_rubric_not_every_check_it_extends(tmp_path):
    shutil.copyfile(BLOCKED / "solution.py", tmp_path / "attention.py")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "attention.py", "--attention-assignment", str(BLOCKED),
         "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    # The shipped causal_mask checks are not in the course's rubric: not run, so not failed.
    assert run.returncode == 0 and "deselected" in run.stdout and "101/101 points" in run.stdout, run.stdout[-2000:]


def test_the_stronger_search_draws_inputs_of_each_probes_shapes_at_many_scales_and_in_float32():
    from grader.validation import mutants

    probe = ("attention", (np.ones((3, 2)), np.ones((4, 2)), np.ones((4, 5)), np.tril(np.ones((3, 4), dtype=bool))), {})
    calls = mutants.searched([probe])
    assert len(calls) == mutants.SEARCHED_PER_PROBE and all(function == "attention" for function, _, _ in calls)
    assert all([arg.shape for arg in args] == [arg.shape for arg in probe[1]] for _, args, _ in calls)
    assert {args[0].dtype.name for _, args, _ in calls} == {"float64", "float32"}
    assert all(args[3].dtype == bool for _, args, _ in calls) and len({args[3].tobytes() for _, args, _ in calls}) > 1
    magnitudes = {round(float(np.log10(np.abs(args[0]).max()))) for _, args, _ in calls}
    assert len(magnitudes) >= 3  # from about 0.1 to about 1000


def test_a_survivor_is_left_out_of_the_score_only_where_no_input_told_it_apart():
    from grader.validation.mutants import Mutant, Score, Survivor

    hole = Survivor(Mutant("core/NumberReplacer 1", ""), "", no_difference_in=0)
    alike = Survivor(Mutant("core/NumberReplacer 2", ""), "", no_difference_in=216)
    score = Score(graded=10, killed=8, survivors=[hole, alike], made=10, minimum=0.0)
    assert score.holes == [hole] and score.not_counted == [alike]
    assert score.percent == 100.0 * 8 / 9  # the hole counts against the score; the other is left out


# -- stability -------------------------------------------------------------------------------

COURSE_0_8 = COURSES / "layer_norm_0_8"  # tests/courses/layer_norm as version 0.8.0 shipped it, unchanged


def test_a_course_written_against_0_8_0_validates_and_grades_as_it_did(tmp_path):
    """grader.authoring's stability promise (docs/reference/authoring.md): a course written
    against 0.8.0, the first version with a public authoring surface, still validates and
    gives every head the score, the failed checks and the named mistakes 0.8.0 gave it
    (recorded in layer_norm_0_8.graded.json by 0.8.0's `grader grade`)."""
    code, output = _invoke("validate", COURSE_0_8, "--mutants", "0", "--sandbox", "process")
    assert code == 0 and "the reference gets 100/100" in output, output
    code, output = _invoke("grade", HEADS, "--out", tmp_path / "out", "--assignment", COURSE_0_8, "--sandbox", "process")
    assert code == 0, output
    recorded = json.loads((COURSES / "layer_norm_0_8.graded.json").read_text())
    graded = {}
    for path in sorted((tmp_path / "out").glob("*.json")):
        report = json.loads(path.read_text())
        if "checks" in report:
            graded[report["student"]] = {
                "score": report["score"],
                "failed": sorted(check["id"] for check in report["checks"] if check["status"] != "passed"),
                "diagnoses": sorted(_named(report)),
            }
    assert graded == {student: {**was, "diagnoses": sorted(was["diagnoses"])} for student, was in recorded.items()}


def test_a_courses_variants_folder_is_validated_file_by_file_and_kept_in_its_folder(tmp_path):
    """Each file declares what it must be told and which checks it must fail; validation
    holds it to both, and refuses a variants folder outside the course."""
    course = tmp_path / "layer_norm"
    shutil.copytree(LAYER_NORM, course, ignore=shutil.ignore_patterns("__pycache__"))
    init = course / "__init__.py"
    init.write_text(init.read_text().replace('    rubric="rubric.toml",\n', '    rubric="rubric.toml",\n    variants="variants",\n', 1))
    head = (HEADS / "eps_outside.py").read_text()
    (course / "variants").mkdir()
    (course / "variants" / "eps_outside.py").write_text(
        "# diagnosis: layer_norm_eps_outside_sqrt\n# must-fail: layer_norm.*\n" + head
    )
    (course / "variants" / "told_wrong.py").write_text("# diagnosis: layer_norm_no_eps\n# must-fail: row_stats.*\n" + head)
    code, output = _invoke("validate", course, "--mutants", "0", "--sandbox", "process")
    assert code == 1, output
    assert "  ok    variant eps_outside (layer_norm_eps_outside_sqrt): loses points on layer_norm." in output
    told_wrong = output.split("variant told_wrong", 1)[1]
    assert "row_stats.* passes: the file is meant to fail it" in told_wrong
    assert "layer_norm_no_eps is not named" in told_wrong and "layer_norm_eps_outside_sqrt is named too" in told_wrong

    init.write_text(init.read_text().replace('variants="variants"', 'variants="../elsewhere"'))
    (tmp_path / "elsewhere").mkdir()
    code, output = _invoke("validate", course, "--mutants", "0", "--sandbox", "process")
    assert code != 0 and "its variants '../elsewhere' lies outside the assignment's folder" in output, output
