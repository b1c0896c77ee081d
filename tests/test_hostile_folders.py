"""A submissions folder as a hostile class and cloned repositories leave it: links (to a
classmate, to secrets outside, to a folder, inside a cloned git repository), a named
pipe, a socket, a device, a file far over the size limit, and names no output expects
(not UTF-8, control characters, a carriage return, a spreadsheet formula), beside honest
files. ``grader grade`` must finish with exit 0, grade every honest file, give each odd
one an error report of one sentence without opening what a link points to, and write
every output so that its consumer reads it, also when run again (the resume), and print
nothing a terminal would act on.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REFERENCE, ROOT

SECRET = "sk_live_HOSTILE0123456789"  # a .env value: valid Python, so a NameError would quote it
SOLUTION_MARKER = "INSTRUCTORS_ONLY_SOLUTION_MARKER"
# File names no output can carry raw, and the id each is reported under: what no output
# can carry is shown as an escape, as Python writes it.
ODD_NAMES = {
    os.fsdecode(b"caf\xe9"): "caf\\xe9",
    "cr\rid": "cr\\rid",
    "esc\x1b]0;owned\x07\x1b[2J": "esc\\x1b]0;owned\\x07\\x1b[2J",
    "=HYPERLINK(\"evil\";\"click\")": "=HYPERLINK(\"evil\";\"click\")",
    "two\nlines": "two\\nlines",
}
SMALL_RUBRIC = """
name = "small"
[[checks]]
id = "softmax.rows_sum_to_one"
points = 2
[[checks]]
id = "causal_mask.values"
points = 3
"""


def _make_folder(root: Path) -> tuple[Path, dict[str, str]]:
    """The folder, and what each odd entry's report must say (a phrase of its error)."""
    outside = root / "outside"
    (outside / "outside_folder").mkdir(parents=True)
    (outside / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    (outside / "solution.ipynb").write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": f"{SOLUTION_MARKER}()\nimport numpy as np\n"}],
    }))
    shutil.copyfile(REFERENCE, outside / "outside_folder" / "attention.py")
    folder = root / "submissions"
    folder.mkdir()
    shutil.copyfile(REFERENCE, folder / "honest_a.py")
    (folder / "honest_b").mkdir()
    shutil.copyfile(REFERENCE, folder / "honest_b" / "attention.py")
    for name in ODD_NAMES:
        shutil.copyfile(REFERENCE, folder / f"{name}.py")
    odd = {
        "link_to_classmate": "symbolic link",
        "link_to_env": "symbolic link",
        "link_to_solution": "symbolic link",
        "linked_folder": "symbolic link",
        "folder_with_link": "symbolic link",
        "linked_zero": "symbolic link",
        "named_pipe": "not a regular file",
        "unix_socket": "not a regular file",
        "huge": "at most",
    }
    (folder / "link_to_classmate.py").symlink_to("honest_a.py")
    (folder / "link_to_env.py").symlink_to(outside / ".env")
    (folder / "link_to_solution.ipynb").symlink_to(Path("..") / "outside" / "solution.ipynb")
    (folder / "linked_folder").symlink_to(outside / "outside_folder", target_is_directory=True)
    (folder / "folder_with_link").mkdir()
    (folder / "folder_with_link" / "attention.py").symlink_to(Path("..") / "honest_a.py")
    (folder / "linked_zero.py").symlink_to("/dev/zero")
    os.mkfifo(folder / "named_pipe.py")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / "unix_socket.py"))
    listener.close()
    with open(folder / "huge.py", "wb") as stream:
        stream.truncate(8 * 1024**3)  # sparse: 8 GiB that a whole read would try to hold
    if os.geteuid() == 0:
        os.mknod(folder / "device.py", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # as /dev/zero
        odd["device"] = "not a regular file"
    if shutil.which("git"):
        odd["cloned"] = "symbolic link"
        _cloned_repository_with_a_link(root, folder / "cloned")
    return folder, odd


def _cloned_repository_with_a_link(root: Path, destination: Path) -> None:
    """A student's repository whose attention.ipynb is a relative link out of it, cloned as
    an instructor clones a class (git makes the link on checkout)."""
    repository = root / "student-repo"
    repository.mkdir()
    (repository / "attention.ipynb").symlink_to(Path("..") / ".." / "outside" / "solution.ipynb")
    git = ["git", "-c", "user.name=s", "-c", "user.email=s@example.invalid", "-c", "init.defaultBranch=main"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "hand in"]):
        subprocess.run([*git, *command], cwd=repository, check=True, capture_output=True)
    subprocess.run([*git, "clone", "-q", str(repository), str(destination)], check=True, capture_output=True)
    assert (destination / "attention.ipynb").is_symlink()


def _grade(folder: Path, out: Path, rubric: Path, isolation: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--rubric", str(rubric),
        "--sandbox", isolation, "--jobs", "2", "--html", "--junit", "--canvas", "--similarity",
    ]
    return subprocess.run(command, cwd=ROOT, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def graded_twice(tmp_path_factory, isolation):
    root = tmp_path_factory.mktemp("odd")
    folder, odd = _make_folder(root)
    rubric = root / "small.toml"
    rubric.write_text(SMALL_RUBRIC)
    out = root / "out"
    first = _grade(folder, out, rubric, isolation)
    reports_after_first = {path.name: path.read_bytes() for path in out.glob("*.json")}
    second = _grade(folder, out, rubric, isolation)
    return {"folder": folder, "odd": odd, "out": out, "runs": (first, second), "first": reports_after_first}


def _reports(out: Path) -> dict[str, dict]:
    reports = {}
    for path in out.glob("*.json"):
        if path.stem not in ("summary", "similarity"):
            report = json.loads(path.read_text(encoding="utf-8"))
            reports[report["student"]] = report
    return reports


def test_the_batch_finishes_and_grades_every_honest_file(graded_twice):
    for run in graded_twice["runs"]:
        assert run.returncode == 0, run.stderr.decode(errors="replace")
    reports = _reports(graded_twice["out"])
    assert reports["honest_a"]["score"] == reports["honest_b"]["score"] == 5
    for student in ODD_NAMES.values():
        assert reports[student]["status"] == "graded" and reports[student]["score"] == 5, student


def test_each_odd_entry_gets_an_error_report_of_one_sentence(graded_twice):
    reports = _reports(graded_twice["out"])
    for student, phrase in graded_twice["odd"].items():
        report = reports[student]
        assert report["status"] == "error", (student, report["score"])
        assert report["score"] == 0
        assert phrase in report["error"] and "\n" not in report["error"], (student, report["error"])


def test_nothing_a_link_points_to_reaches_any_output(graded_twice):
    out = graded_twice["out"]
    for path in out.iterdir():
        text = path.read_bytes()
        assert SECRET.encode() not in text, path.name
        assert SOLUTION_MARKER.encode() not in text, path.name
    for run in graded_twice["runs"]:
        assert SECRET.encode() not in run.stdout + run.stderr


def test_the_resume_keeps_every_report_and_reads_no_file_whole(graded_twice):
    first, second = graded_twice["runs"]
    assert b"kept from an earlier run" in second.stdout
    after = {path.name: path.read_bytes() for path in graded_twice["out"].glob("*.json")}
    for name, text in graded_twice["first"].items():
        if name not in ("summary.json", "similarity.json"):
            assert after[name] == text, name


def test_every_output_is_read_by_its_consumer(graded_twice):
    junitparser = pytest.importorskip("junitparser")
    out = graded_twice["out"]
    reports = _reports(out)
    for path in out.glob("*.json"):
        text = path.read_text(encoding="utf-8")  # strict UTF-8: no lone surrogate was written
        json.loads(text)
    for name in ("grades.csv", "canvas.csv"):
        with open(out / name, newline="", encoding="utf-8") as stream:
            rows = list(csv.reader(stream))
        assert len({len(row) for row in rows}) == 1, name  # no CR or LF ended a row early
        for row in rows[1:]:
            for cell in row:
                assert not cell or cell[0] not in "=+-@\t\r", (name, cell)
    with open(out / "grades.csv", newline="", encoding="utf-8") as stream:
        students = [row[0] for row in csv.reader(stream)][1:]
    assert sorted(students) == sorted("'" + student if student[0] in "=+-@" else student for student in reports)
    junitparser.JUnitXml.fromfile(str(out / "junit.xml"))
    for student in reports:
        assert (out / f"{student}.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (out / "index.html").read_text(encoding="utf-8")


def test_nothing_a_terminal_acts_on_is_printed(graded_twice):
    for run in graded_twice["runs"]:
        for stream in (run.stdout, run.stderr):
            text = stream.decode("utf-8")  # strict: no lone surrogate
            assert all(character == "\n" or character.isprintable() for character in text), repr(text)


def test_python_dash_m_from_inside_the_folder_runs_none_of_it(tmp_path):
    """``python -m`` puts the working directory first on sys.path: a student's click.py or
    numpy.py there must not run in the grader's own process."""
    marker = tmp_path / "ran"
    for module in ("click", "numpy", "hypothesis", "pytest", "json"):
        (tmp_path / f"{module}.py").write_text(f"open({str(marker)!r}, 'a').write({module!r})\n")
    result = subprocess.run(
        [sys.executable, "-m", "grader", "check", "--help"], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert not marker.exists(), marker.read_text()
