"""Shared fixtures: the known heads, graded once per test session through the batch path."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from grader.batch import grade_folder
from grader.report import Report
from grader.resources import DEFAULT_RUBRIC, project_file
from grader.rubric import Rubric, load_rubric
from grader.sandbox import Limits, resolve_isolation

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
HEADS = TESTS / "heads"
REFERENCE = ROOT / "reference" / "attention.py"
TEMPLATE = ROOT / "student_template" / "attention.py"
MUST_FAIL = re.compile(r"^# must-fail:(.*)$", re.MULTILINE)


def must_fail(path: Path) -> list[str]:
    """The check ids a buggy head declares it must fail, from its ``# must-fail:`` line."""
    match = MUST_FAIL.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{path} has no '# must-fail:' line")
    return [check_id.strip() for check_id in match.group(1).split(",") if check_id.strip()]


def head_id(path: Path) -> str:
    return f"{path.parent.name}__{path.stem}"


def known_heads() -> list[Path]:
    return sorted(HEADS.glob("buggy/*.py")) + sorted(HEADS.glob("correct/*.py")) + [REFERENCE, TEMPLATE]


@pytest.fixture(scope="session")
def isolation() -> str:
    """Bubblewrap where it works (CI installs it, so CI tests the real path), else a plain process."""
    return resolve_isolation("auto")


@pytest.fixture(scope="session")
def rubric() -> Rubric:
    return load_rubric(project_file(DEFAULT_RUBRIC))


@pytest.fixture(scope="session")
def graded_heads(tmp_path_factory: pytest.TempPathFactory, rubric: Rubric, isolation: str) -> dict[str, Report]:
    """Every known head graded in one parallel batch; reports keyed by head id."""
    folder = tmp_path_factory.mktemp("heads")
    for path in known_heads():
        shutil.copyfile(path, folder / f"{head_id(path)}.py")
    limits = Limits(isolation=isolation)
    reports = grade_folder(folder, tmp_path_factory.mktemp("reports"), rubric, limits, jobs=os.cpu_count() or 1)
    return {report.student: report for report in reports}


def statuses(report: Report) -> dict[str, str]:
    return {check.id: check.status for check in report.checks}
