"""A course's assignment published as a package (tests/courses/package/pyproject.toml, the
example of the docs' "Publish a course package"): built into a real wheel, installed, and
found by students' commands by its entry point's name alone, with its rubric, handout and
template.

The package folder is made as a course's repository holds it: pyproject.toml and
cs101_assignments/ from tests/courses/package/, with the course folder
tests/courses/layer_norm copied in as cs101_assignments/layer_norm. The wheel is built
with pypa's build and hatchling without build isolation (both come with the test extra),
so no network is needed, and installed with pip into a folder of its own (without its
dependency, the grader, which runs here already) put on PYTHONPATH: the grader this test
runs is the one installed here, as a student's is beside the course package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

COURSES = ROOT / "tests" / "courses"
PACKAGE = COURSES / "package"
HEADS = COURSES / "layer_norm_heads"
WHEEL = "cs101_assignments-1.0.0-py3-none-any.whl"
INSTALL = "cs101-assignments @ git+https://github.com/myorg/cs101-assignments@v1"


def _run(command: list[str], cwd: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS", "GRADER_"))}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    if site is not None:
        environment["PYTHONPATH"] = str(site)  # as `pip install` leaves it: importable, and its entry points read
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the course package, built from its folder as a course's repository holds it."""
    root = tmp_path_factory.mktemp("course")
    repository = root / "cs101-assignments"
    shutil.copytree(PACKAGE, repository, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(COURSES / "layer_norm", repository / "cs101_assignments" / "layer_norm",
                    ignore=shutil.ignore_patterns("__pycache__"))
    done = _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(root / "dist"), str(repository)],
                cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "dist" / WHEEL


@pytest.fixture(scope="module")
def site(built: Path) -> Path:
    """The wheel installed with pip into a folder of its own."""
    target = built.parent.parent / "site"
    done = _run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(built)],
                cwd=built.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def test_the_pyproject_declares_the_assignment_under_the_graders_entry_point_group():
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["version"]
    assert project["project"]["entry-points"]["grader.assignments"] == {"layer_norm": "cs101_assignments.layer_norm"}
    (grader,) = [line for line in project["project"]["dependencies"] if line.startswith("attention-grader")]
    assert "@ git+https://" in grader  # the grader is on no index: a bare name would not install


def test_the_wheel_carries_every_file_of_the_course_folder(built):
    with zipfile.ZipFile(built) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read("cs101_assignments-1.0.0.dist-info/entry_points.txt").decode()
        metadata = wheel.read("cs101_assignments-1.0.0.dist-info/METADATA").decode()
    folder = COURSES / "layer_norm"
    expected = {
        f"cs101_assignments/layer_norm/{path.relative_to(folder).as_posix()}"
        for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts
    }
    assert expected - names == set()
    for data in ("rubric.toml", "handout.md", "template.py", "solution.py"):
        assert f"cs101_assignments/layer_norm/{data}" in names
    assert not any("__pycache__" in name for name in names)
    assert "[grader.assignments]\nlayer_norm = cs101_assignments.layer_norm" in entry_points
    assert "Version: 1.0.0" in metadata and "Requires-Dist: attention-grader @ git+https://" in metadata


@pytest.mark.parametrize(("head", "score", "named"), [("no_eps", 60, ["layer_norm_no_eps"]), ("correct_vectorised", 100, [])])
def test_a_students_check_finds_the_installed_assignment_by_its_name(tmp_path, site, head, score, named):
    shutil.copyfile(HEADS / f"{head}.py", tmp_path / "layer_norm.py")
    done = _run(["grader", "check", "layer_norm.py", "--assignment", "layer_norm", "--json", "-"], cwd=tmp_path, site=site)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "graded" and report["score"] == score and report["max_score"] == 100
    assert report["assignment"].startswith("layer_norm-")
    # The rubric is the one installed with the package, not a folder of the course's repository.
    assert Path(report["rubric"]["path"]) == site / "cs101_assignments" / "layer_norm" / "rubric.toml"
    assert [entry["id"] for entry in report["diagnoses"] if entry["id"] not in ("observed", "unfinished")] == named


def test_a_student_file_named_after_the_handout_needs_no_option(tmp_path, site):
    shutil.copyfile(HEADS / "no_eps.py", tmp_path / "layer_norm.py")
    done = _run(["grader", "check", "layer_norm.py", "--json", "-"], cwd=tmp_path, site=site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["assignment"].startswith("layer_norm-")


def test_export_student_hands_out_the_installed_assignments_template_and_handout(tmp_path, site):
    done = _run(["grader", "export-student", "handout", "--assignment", "layer_norm", "--install", INSTALL], cwd=tmp_path, site=site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr  # the assignment is installed: the students' commands will find it
    out = tmp_path / "handout"
    installed = site / "cs101_assignments" / "layer_norm"
    assert (out / "layer_norm.py").read_text(encoding="utf-8") == (installed / "template.py").read_text(encoding="utf-8")
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert readme.startswith((installed / "handout.md").read_text(encoding="utf-8"))
    assert f'python -m pip install "{INSTALL}"' in readme
    assert "grader check layer_norm.py --assignment layer_norm --rubric rubric.toml" in readme
    assert not (out / "solution.py").exists() and "def layer_norm" not in (out / "rubric.toml").read_text(encoding="utf-8")
