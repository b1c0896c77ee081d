"""The README's first command on a bare machine: root, and no bubblewrap (a Docker
container, a Colab VM). ``grader check`` and the pytest route are a student's self-check
and run in a plain process with a warning; ``grader grade`` still refuses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import REFERENCE
from grader import sandbox
from grader.cli import cli

WARNING = "grader: warning: bubblewrap is missing or cannot start here"


@pytest.fixture
def bare_root(monkeypatch):
    """This process is root and bubblewrap does not work (the check process it starts
    only runs the sandbox it is told to)."""
    monkeypatch.setattr(sandbox, "bubblewrap_works", lambda: False)
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)


def test_check_as_root_without_bubblewrap_grades_as_a_self_check(bare_root, rubric, tmp_path):
    result = CliRunner().invoke(cli, ["check", str(REFERENCE), "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    (warning,) = result.stderr.splitlines()
    assert warning.startswith(WARNING) and "a self-check, not a grade of record" in warning
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["sandbox"], report["self_check"]) == ("process", True)
    assert report["score"] == rubric.max_score + sum(check.points for check in rubric.checks if check.bonus)


def test_grade_as_root_without_bubblewrap_still_refuses(bare_root, tmp_path):
    (tmp_path / "in").mkdir()
    shutil.copyfile(REFERENCE, tmp_path / "in" / "ada.py")
    result = CliRunner().invoke(cli, ["grade", str(tmp_path / "in"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr == (
        "grader: error: grading as root needs bubblewrap (Debian package 'bubblewrap'); to run submissions "
        "as root in a plain process anyway, pass --sandbox process\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root is refused a plain process; this runs as another user")
def test_pytest_route_as_root_without_bubblewrap_is_a_self_check(tmp_path):
    shutil.copyfile(REFERENCE, tmp_path / "attention.py")
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS"))}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--attention-submission", "attention.py", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        env={**environment, "PATH": str(tmp_path / "empty")},  # no bwrap on it
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert run.stderr.startswith(WARNING) and "100/100 points (+5 bonus)" in run.stdout
