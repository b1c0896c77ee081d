"""A course secret (grader.checking.secret): the grade of record draws its examples' values from it,
so the public grader cannot be used to work them out in advance; the same file and the
same secret always get the same grade, and without one the examples are the public ones."""

from __future__ import annotations

import stat
import zipfile

import pytest
from click.testing import CliRunner
from conftest import HEADS, REFERENCE, VARIANTS

from grader.batch import grade_folder
from grader.checking import secret
from grader.cli import cli
from grader.engine.grading import grade_file
from grader.errors import UsageError
from grader.sandbox import Limits

SECRET = "course-secret-0123456789abcdef"
BUGGY = VARIANTS / "missing_scale.py"


def test_the_key_comes_from_the_file_or_the_environment_and_its_label_says_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(secret.ENVIRONMENT_VARIABLE, raising=False)
    assert secret.course_key(None) is None and secret.label(None) == "public"
    (tmp_path / "secret").write_text(SECRET + "\n")
    monkeypatch.setenv(secret.ENVIRONMENT_VARIABLE, SECRET)
    key = secret.course_key(None)
    assert key == secret.course_key(tmp_path / "secret") and SECRET not in key
    assert secret.label(key).startswith("course-") and key not in secret.label(key)
    (tmp_path / "short").write_text("hunter2")
    with pytest.raises(UsageError, match="at least 16"):
        secret.course_key(tmp_path / "short")


def _counterexamples(report) -> dict[str, str]:
    """The repro of each failed check whose examples are drawn (the worked example's is the lesson's)."""
    return {
        check.id: check.counterexample["repro"]
        for check in report.checks
        if check.counterexample and check.id != "attention.worked_example"
    }


def test_a_secret_draws_other_values_and_the_same_file_gets_the_same_grade(isolation, rubric):
    public = Limits(isolation=isolation)
    course = Limits(isolation=isolation, course_key=secret.course_key_of(SECRET.encode()))
    other = Limits(isolation=isolation, course_key=secret.course_key_of(b"another-course-secret-42"))
    reports = {
        name: grade_file(BUGGY, rubric, limits)
        for name, limits in (("public", public), ("course", course), ("again", course), ("other", other))
    }
    assert reports["public"].examples == "public" and reports["course"].examples == course.examples != "public"
    assert _counterexamples(reports["course"]) == _counterexamples(reports["again"])
    assert reports["course"].score == reports["again"].score
    for name in ("public", "other"):
        shared = _counterexamples(reports[name]).keys() & _counterexamples(reports["course"]).keys()
        assert shared and all(
            _counterexamples(reports[name])[check] != _counterexamples(reports["course"])[check] for check in shared
        )
    assert grade_file(REFERENCE, rubric, course).score == rubric.max_score + 5


def test_a_report_graded_under_other_examples_is_graded_again(tmp_path, rubric, isolation):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.py").write_bytes(REFERENCE.read_bytes())
    out = tmp_path / "out"
    kept = []

    def grade(limits: Limits) -> None:
        grade_folder(folder, out, rubric, limits, on_report=lambda report, done, total, was_kept: kept.append(was_kept))

    grade(Limits(isolation=isolation))
    grade(Limits(isolation=isolation, course_key=secret.course_key_of(SECRET.encode())))
    grade(Limits(isolation=isolation, course_key=secret.course_key_of(SECRET.encode())))
    assert kept == [False, False, True]


def test_the_platform_bundles_carry_the_secret_for_root_alone_and_the_student_bundle_never(tmp_path):
    (tmp_path / "secret").write_text(SECRET)
    runner = CliRunner()
    zipped = tmp_path / "autograder.zip"
    assert runner.invoke(cli, ["gradescope-bundle", str(zipped), "--secret-file", str(tmp_path / "secret")]).exit_code == 0
    with zipfile.ZipFile(zipped) as archive:
        assert archive.read("secret.txt").strip() == SECRET.encode()
        assert (archive.getinfo("secret.txt").external_attr >> 16) & 0o077 == 0
    folder = tmp_path / "pl"
    result = runner.invoke(cli, ["prairielearn-bundle", str(folder), "--secret-file", str(tmp_path / "secret")])
    assert result.exit_code == 0, result.output
    # An image may be pushed to a public registry: the secret reaches it at run time only.
    assert f'set "{secret.ENVIRONMENT_VARIABLE}"' in result.output and "externalGradingOptions.environment" in result.output
    assert not (folder / "secret.txt").exists()
    for path in folder.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
    handout = tmp_path / "handout"
    env = {secret.ENVIRONMENT_VARIABLE: SECRET}
    assert runner.invoke(cli, ["export-student", str(handout), "--install", "attention-grader"], env=env).exit_code == 0
    for path in handout.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
    public = tmp_path / "public.zip"
    assert runner.invoke(cli, ["gradescope-bundle", str(public)], env={secret.ENVIRONMENT_VARIABLE: ""}).exit_code == 0
    assert "secret.txt" not in zipfile.ZipFile(public).namelist()
