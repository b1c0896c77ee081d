"""Files a student meant as a submission, named as an LMS export, a browser or a hurried
rename leaves them: each is accounted for, graded as it was meant where that is plain,
else reported with what the folder holds; ids that one report file would hold on a
case-insensitive or normalising file system are told apart."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from conftest import REFERENCE, ROOT

from grader.batch.submissions import find_submissions

# A file's name -> the id it is graded under and a phrase its note holds.
TOP_LEVEL = {
    "attention.py.txt": ("attention", "'attention.py.txt', not attention.py"),
    "bob.PY": ("bob", "'bob.PY', not bob.py"),
    "carol.py ": ("carol", "'carol.py ', not carol.py"),
    "nb.IPYNB": ("nb", "'nb.IPYNB', not nb.ipynb"),
    "kim .py": ("kim", "'kim .py', not kim.py"),
    "lea.pyw": ("lea", "'lea.pyw', not lea.py"),
    " .py": ("unnamed", "' .py', which gives no id: it is graded as unnamed"),
}
IN_A_FOLDER = {
    "dan": (["attention (1).py"], "graded as attention.py"),
    "eve": (["attention copy.py"], "graded as attention.py"),
    "ivy": (["Attention.py"], "graded as attention.py"),
}
NOT_GRADED = {
    "fay": (["solution.py"], "holds 'solution.py' but no attention.py: rename the file to grade"),
    "gus": (["attention (1).py", "Attention.py"], "holds 'Attention.py' and 'attention (1).py' but no attention.py"),
}


def _class(root: Path) -> Path:
    folder = root / "class"
    folder.mkdir()
    for name in TOP_LEVEL:
        shutil.copyfile(REFERENCE, folder / name)
    for student, (names, _) in {**IN_A_FOLDER, **NOT_GRADED}.items():
        (folder / student).mkdir()
        for name in names:
            shutil.copyfile(REFERENCE, folder / student / name)
    (folder / "README.txt").write_text("not a submission\n")
    (folder / "notes.md").write_text("not a submission\n")
    return folder


def test_every_file_meant_as_a_submission_is_found_and_told_its_name(tmp_path):
    folder = _class(tmp_path)
    found = {submission.student: submission for submission in find_submissions(folder, "attention.py")}
    assert set(found) == {id_ for id_, _ in TOP_LEVEL.values()} | set(IN_A_FOLDER) | set(NOT_GRADED)
    for name, (student, phrase) in TOP_LEVEL.items():
        assert found[student].path.name == name and phrase in found[student].note
    for student, (names, phrase) in IN_A_FOLDER.items():
        assert found[student].path.name == names[0] and phrase in found[student].note


def test_a_blank_name_beside_a_student_called_unnamed_takes_no_ones_id(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in (" .py", "unnamed.py", "  .py"):
        shutil.copyfile(REFERENCE, folder / name)
    (folder / " ").mkdir()
    shutil.copyfile(REFERENCE, folder / " " / "attention.py")
    found = {submission.path.relative_to(folder).as_posix(): submission for submission in find_submissions(folder, "attention.py")}
    assert found["unnamed.py"].student == "unnamed" and found["unnamed.py"].note is None
    blank = [found[name] for name in (" .py", "  .py", " /attention.py")]
    assert len({submission.student for submission in blank}) == 3
    assert all(submission.student.startswith("unnamed~") and "unnamed" in submission.note for submission in blank)


def test_a_name_clash_only_a_case_insensitive_or_normalising_file_system_sees_is_told_apart(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    names = ["Ada.py", "ada.py", unicodedata.normalize("NFC", "zoë.py"), unicodedata.normalize("NFD", "zoë.py"),
             "Summary.py", "hal.py", "hal.PY"]
    for name in names:
        shutil.copyfile(REFERENCE, folder / name)
    found = find_submissions(folder, "attention.py")
    assert len(found) == len(names)
    folded = [unicodedata.normalize("NFC", submission.student).casefold() for submission in found]
    assert len(set(folded)) == len(folded) and "summary" not in folded
    # Neither of two names a file system would fold together keeps the plain id: an attacker
    # naming a file ADA.py cannot take ada's, whichever sorts first.
    assert {"Ada", "ada", "zoë"}.isdisjoint(submission.student for submission in found)
    assert sum(submission.note is not None for submission in found) == 6  # Ada, ada, both zoë, Summary, hal.PY
    again = find_submissions(folder, "attention.py")
    assert [submission.student for submission in again] == [submission.student for submission in found]


def test_a_class_with_near_misses_is_graded_and_the_batch_lists_them(tmp_path, isolation):
    folder, out = _class(tmp_path), tmp_path / "out"
    rubric = tmp_path / "small.toml"
    rubric.write_text('name = "small"\n[[checks]]\nid = "causal_mask.values"\npoints = 3\n')
    result = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--rubric", str(rubric),
         "--sandbox", isolation, "--jobs", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    by_id = {entry["student"]: entry for entry in summary["submissions"]}
    for student in [id_ for id_, _ in TOP_LEVEL.values()] + list(IN_A_FOLDER):
        assert by_id[student]["score"] == 3, by_id[student]
        assert by_id[student]["note"]
    for student, (_, phrase) in NOT_GRADED.items():
        assert by_id[student]["status"] == "error" and phrase in by_id[student]["error"]
    assert sorted(summary["named_otherwise"]) == sorted(by_id)
    assert f"{len(by_id)} submissions' names needed a note" in result.stdout


@pytest.mark.parametrize("name", ["README.txt", "x.pyc", "x.py~", "notes.md", ".hidden.py"])
def test_what_is_no_submission_stays_none(tmp_path, name):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(REFERENCE, folder / "ada.py")
    (folder / name).write_text("print('hi')\n")
    assert [submission.student for submission in find_submissions(folder, "attention.py")] == ["ada"]


def test_check_of_a_file_whose_name_gives_no_id_grades_it_as_unnamed_and_says_so(tmp_path):
    shutil.copyfile(REFERENCE, tmp_path / " .py")
    run = subprocess.run([sys.executable, "-m", "grader", "check", str(tmp_path / " .py"), "--format", "json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout)
    assert report["student"] == "unnamed" and "which gives no id" in " ".join(report["source"]["notes"])
