"""Shared fixtures: the known heads (with the heads tests/in_progress.py and
tests/inline_heads.py make), graded once per test session through the batch path; and the
``bubblewrap`` marker.

A test marked ``bubblewrap`` needs the real sandbox. Where bubblewrap cannot start a
worker (a bare container, macOS) it is skipped with the reason; in CI (``CI`` set, as
.ci/run sets it) the run stops with an error instead, so CI never passes with the
sandbox untested.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import in_progress
import inline_heads
import pytest

from grader import assignments
from grader.assignments.rubric import Rubric, load_rubric
from grader.batch import grade_folder, read_in_full
from grader.report import Report
from grader.resources import project_file
from grader.sandbox import UNPRIVILEGED, Limits, bubblewrap_works

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
HEADS = TESTS / "heads"
# One head per known mistake, shipped with each assignment: what `grader validate` grades as its variants.
VARIANTS = ROOT / "grader" / "assignments" / "attention_head" / "variants"
MULTI_HEAD_VARIANTS = ROOT / "grader" / "assignments" / "multi_head" / "variants"
REFERENCE = ROOT / "reference" / "attention.py"
TEMPLATE = ROOT / "student_template" / "attention.py"
NO_BUBBLEWRAP = "bubblewrap cannot start a worker here (install it: apt-get install bubblewrap)"
# The system's Python, which every user can read (this machine's own interpreter may live
# in root's home, out of uid 65534's reach, as with pyenv under /root).
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
NEEDS_ROOT_AND_SYSTEM_PYTHON = pytest.mark.skipif(
    os.geteuid() != 0 or not SYSTEM_PYTHON.exists(), reason="needs root and a system Python"
)
HEADER = re.compile(rb"^# (must-fail|must-pass|report-status|diagnosis):(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Expectation:
    """What a test submission declares about its own report (globs allowed in check ids)."""

    must_fail: tuple[str, ...]
    must_pass: tuple[str, ...]
    status: str
    diagnoses: tuple[str, ...] = ()  # the known mistakes (grader.diagnoses) it must be told, in order

    def violations(self, report: Report) -> dict[str, str]:
        """Checks whose status contradicts the declaration, with the status found."""
        found = {}
        for check in report.checks:
            if any(fnmatch(check.id, pattern) for pattern in self.must_fail) and check.status == "passed":
                found[check.id] = "passed"
            if any(fnmatch(check.id, pattern) for pattern in self.must_pass) and check.status != "passed":
                found[check.id] = f"{check.status}: {check.feedback}"
        return found


def expectation(path: Path) -> Expectation:
    """Read ``# must-fail:``, ``# must-pass:``, ``# report-status:`` and ``# diagnosis:`` lines
    from a test submission, or from ``<name>.expect`` beside it for files that cannot hold comments."""
    sidecar = path.with_suffix(".expect")
    text = sidecar.read_bytes() if sidecar.exists() else path.read_bytes()
    fields: dict[str, tuple[str, ...]] = {}
    for key, value in HEADER.findall(text):
        fields[key.decode()] = tuple(item.strip() for item in value.decode().split(",") if item.strip())
    if "must-fail" not in fields:
        raise ValueError(f"{path} declares no '# must-fail:' line")
    return Expectation(
        fields["must-fail"],
        fields.get("must-pass", ()),
        (fields.get("report-status") or ("graded",))[0],
        fields.get("diagnosis", ()),
    )


def head_id(path: Path) -> str:
    """A head's name in a batch: its folders under tests/heads/ and its stem (wild/correct/x.py
    is wild__correct__x), or its folder and stem elsewhere."""
    parts = path.relative_to(HEADS).with_suffix("").parts if path.is_relative_to(HEADS) else (path.parent.name, path.stem)
    return "__".join(parts)


def known_heads() -> list[Path]:
    return (
        sorted(VARIANTS.glob("*.py")) + sorted(HEADS.glob("second_set/*.py")) + sorted(HEADS.glob("correct/*.py"))
        + sorted(HEADS.glob("wild/*.py")) + sorted(HEADS.glob("wild/correct/*.py"))
        + sorted(HEADS.glob("blind/*.py")) + sorted(HEADS.glob("blind/correct/*.py")) + sorted(HEADS.glob("wip/*.py"))
        + sorted(HEADS.glob("told/*.py"))
        + [REFERENCE, TEMPLATE]
    )


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``bubblewrap`` where it cannot start; in CI, stop instead."""
    needing = [item for item in items if item.get_closest_marker("bubblewrap")]
    if not needing or bubblewrap_works():
        return
    if _in_ci():
        raise pytest.UsageError(f"CI must run every bubblewrap test, but {NO_BUBBLEWRAP}")
    skip = pytest.mark.skip(reason=f"needs the real sandbox, but {NO_BUBBLEWRAP}")
    for item in needing:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def isolation() -> str:
    """Bubblewrap where it works (CI installs it, so CI tests the real path), else a plain
    process, named explicitly: as root, ``auto`` would refuse to grade without bubblewrap."""
    return "bubblewrap" if bubblewrap_works() else "process"


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return load_rubric(project_file(assignments.get().rubric))


@pytest.fixture(scope="session")
def graded_heads(tmp_path_factory: pytest.TempPathFactory, rubric: Rubric, isolation: str) -> dict[str, Report]:
    """Every known head graded in one parallel batch; reports keyed by head id."""
    folder = tmp_path_factory.mktemp("heads")
    for path in known_heads():
        shutil.copyfile(path, folder / f"{head_id(path)}.py")
    in_progress.write(folder)
    inline_heads.write(folder)
    limits = Limits(isolation=isolation)
    out = tmp_path_factory.mktemp("reports")
    reports = grade_folder(folder, out, rubric, limits, jobs=os.cpu_count() or 1)
    return {report.student: report for report in read_in_full(out, reports)}


@pytest.fixture(scope="session")
def python_nobody_can_run() -> Iterator[Path]:
    """A Python that uid 65534 can run with numpy, which runs the grader too (for root):
    a virtual environment of the system's Python with this one's packages and the project
    on its path, and numpy copied where 65534 can read it if this one's is out of reach."""
    reachable = Path(tempfile.mkdtemp(prefix="grader-test-python-"))
    reachable.chmod(0o755)  # mkdtemp makes it root's alone
    environment = reachable / "venv"
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(environment)], check=True)
    (site_packages,) = environment.glob("lib/python*/site-packages")
    path_file = site_packages / "grader_tests.pth"
    path_file.write_text("\n".join([*site.getsitepackages(), str(ROOT)]) + "\n")
    python = environment / "bin" / "python"
    if not _nobody_imports_numpy(python):
        import numpy

        copied = reachable / "numpy-site"
        original = Path(numpy.__file__).parent
        for folder in (original, original.parent / "numpy.libs"):
            if folder.is_dir():
                shutil.copytree(folder, copied / folder.name)
        path_file.write_text(f"{copied}\n" + path_file.read_text())
        assert _nobody_imports_numpy(python), "uid 65534 cannot import numpy even from a copy"
    try:
        yield python
    finally:
        shutil.rmtree(reachable)


def _nobody_imports_numpy(python: Path) -> bool:
    run = subprocess.run([str(python), "-c", "import numpy"], cwd="/", capture_output=True, **UNPRIVILEGED)
    return run.returncode == 0
