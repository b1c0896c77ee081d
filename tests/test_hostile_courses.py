"""Attacks on the trust a course's folder gets: a course is trusted but careless, so the
grader holds its folder to being the whole assignment. Each attack here was seen to succeed
before the grader refused it (issue 41); see also tests/hostile/ for attacks by submissions.

- files outside the folder (a reference, a file named with here(), a link out) are refused
  when the assignment loads, on every route, in one sentence naming the file;
- a batch reads the folder once: an edit while it runs changes none of its grades;
- OUT and the submissions folder may not be, hold or lie in the assignment's folder;
- ``export-student`` never hands out a template that scores points or is the reference.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from grader.assignments import outside
from grader.assignments.rubric import chosen_rubric
from grader.batch import grade_folder
from grader.cli import cli
from grader.sandbox import Limits

LAYER_NORM = ROOT / "tests" / "courses" / "layer_norm"
HEADS = ROOT / "tests" / "courses" / "layer_norm_heads"


@pytest.fixture(autouse=True)
def _loaded_here_only(monkeypatch):
    """The course copies loaded here are forgotten after each test: by name, another test
    finds the folder it loads itself."""
    monkeypatch.setattr(outside, "_BY_NAME", dict(outside._BY_NAME))
    monkeypatch.setattr(outside, "_BY_FOLDER", dict(outside._BY_FOLDER))


def _invoke(*args: object) -> tuple[int, str]:
    """The exit code and the output, less this machine's warnings about its sandbox."""
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return result.exit_code, "".join(line for line in result.output.splitlines(True) if not line.startswith("grader: warning:"))


def _course(tmp_path: Path, name: str = "layer_norm") -> Path:
    """A course folder of one's own to attack: a copy of tests/courses/layer_norm."""
    folder = tmp_path / "courses" / name
    shutil.copytree(LAYER_NORM, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _shared_solution(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    shutil.copyfile(LAYER_NORM / "solution.py", shared / "solution.py")
    return shared / "solution.py"


def _refused_on_every_route(tmp_path: Path, course: Path, named: str) -> None:
    submissions = tmp_path / "class"
    submissions.mkdir(exist_ok=True)
    shutil.copyfile(HEADS / "correct_loops.py", submissions / "correct_loops.py")
    for route in (
        ("check", "--assignment", course, HEADS / "correct_loops.py"),
        ("grade", submissions, "--out", tmp_path / "out", "--assignment", course),
        ("validate", course),
        ("gradescope-bundle", tmp_path / "autograder.zip", "--assignment", course),
        ("export-student", tmp_path / "student", "--assignment", course, "--install", "course-pkg==1.0"),
    ):
        code, output = _invoke(*route)
        assert code == 2, (route, output)
        lines = output.strip().splitlines()
        assert len(lines) == 1 and "outside the assignment's folder" in lines[0] and named in lines[0], (route, output)


def test_a_reference_outside_the_folder_is_refused_on_every_route(tmp_path):
    course = _course(tmp_path)
    _shared_solution(tmp_path)
    init = course / "__init__.py"
    init.write_text(init.read_text().replace('reference="solution.py"', 'reference="../../shared/solution.py"'))
    _refused_on_every_route(tmp_path, course, "../../shared/solution.py")


def test_a_file_named_with_here_outside_the_folder_is_refused_on_every_route(tmp_path):
    course = _course(tmp_path)
    _shared_solution(tmp_path)
    calls = course / "calls.py"
    calls.write_text(calls.read_text().replace('here(__file__, "solution.py")', 'here(__file__, "../../shared/solution.py")'))
    _refused_on_every_route(tmp_path, course, "../../shared/solution.py")


def test_a_link_out_of_the_folder_is_refused_on_every_route(tmp_path):
    course = _course(tmp_path)
    shared = _shared_solution(tmp_path)
    (course / "solution.py").unlink()
    (course / "solution.py").symlink_to(shared)
    _refused_on_every_route(tmp_path, course, "solution.py")


def test_a_file_opened_outside_the_folder_while_it_loads_is_refused_on_every_route(tmp_path):
    course = _course(tmp_path)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "eps.txt").write_text("1e-5\n")
    calls = course / "calls.py"
    calls.write_text(calls.read_text() + '\nimport pathlib\n_EPS = pathlib.Path(__file__).parent.joinpath("..", "..", "shared", "eps.txt").read_text()\n')
    _refused_on_every_route(tmp_path, course, "eps.txt")


def test_a_module_imported_from_outside_the_folder_is_refused_on_every_route(tmp_path):
    course = _course(tmp_path)
    shared = _shared_solution(tmp_path)
    calls = course / "calls.py"
    calls.write_text(calls.read_text().replace(
        '_HEAD = reference_module(here(__file__, "solution.py"))',
        f'import sys\nsys.path.insert(0, {str(shared.parent)!r})\nimport solution as _HEAD',
    ))
    _refused_on_every_route(tmp_path, course, "solution.py")


def test_a_reference_given_by_an_absolute_path_outside_every_folder_is_refused(tmp_path):
    course = _course(tmp_path)
    shared = _shared_solution(tmp_path)
    calls = course / "calls.py"
    calls.write_text(calls.read_text().replace('here(__file__, "solution.py")', repr(str(shared))))
    code, output = _invoke("check", "--assignment", course, HEADS / "correct_loops.py")
    assert code == 2 and "lies in no assignment's folder" in output, output


@pytest.mark.parametrize("where", ["out_inside", "submissions_inside", "out_is_course", "course_inside_out"])
def test_out_and_the_submissions_may_not_be_hold_or_lie_in_the_assignments_folder(tmp_path, where):
    course = _course(tmp_path)
    submissions, out = tmp_path / "class", tmp_path / "out"
    if where == "out_inside":
        out = course / "reports"
    elif where == "submissions_inside":
        submissions = course / "class"
    elif where == "out_is_course":
        out = course
    else:
        out = tmp_path / "courses"
    submissions.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HEADS / "correct_loops.py", submissions / "correct_loops.py")
    code, output = _invoke("grade", submissions, "--out", out, "--assignment", course)
    assert code == 2 and "the assignment's folder" in output and len(output.strip().splitlines()) == 1, output
    assert not (course / "reports").exists() and not (course / "summary.json").exists()


def test_an_edit_of_the_course_during_a_batch_changes_none_of_its_grades(tmp_path, isolation):
    """The batch grades every submission against the folder as it read it when it started,
    and labels each with that folder's digest; an edit counts from the next batch. Here the
    course is edited once after it was loaded (so what was loaded is not what is graded), and
    again after the first report."""
    course = _course(tmp_path)
    submissions = tmp_path / "class"
    submissions.mkdir()
    for index in range(8):  # each file its own, so that each is graded on its own
        (submissions / f"student_{index}.py").write_text((HEADS / "correct_loops.py").read_text() + f"# student {index}\n")
    rubric = chosen_rubric(None, str(course))
    solution = course / "solution.py"
    right = solution.read_text()
    solution.write_text(right.replace("mean = ", "mean = 1 + "))
    as_the_batch_starts = outside.files_digest(outside.folder_files(course))

    def put_it_back(report, done, total, kept) -> None:  # noqa: ANN001
        if done == 1:
            solution.write_text(right)

    reports = grade_folder(submissions, tmp_path / "out", rubric, Limits(isolation=isolation), on_report=put_it_back)
    assert len({report.score for report in reports}) == 1 and reports[0].score < 100
    labels = {json.loads(path.read_text())["assignment"] for path in (tmp_path / "out").glob("student_*.json")}
    assert labels == {f"layer_norm-{as_the_batch_starts}"}


def test_export_student_refuses_a_template_that_is_the_reference(tmp_path):
    course = _course(tmp_path)
    init = course / "__init__.py"
    init.write_text(init.read_text().replace('"layer_norm.py": "template.py"', '"layer_norm.py": "solution.py"'))
    code, output = _invoke("export-student", tmp_path / "student", "--assignment", course, "--install", "course-pkg==1.0")
    assert code == 2 and "solution.py" in output and len(output.strip().splitlines()) == 1, output
    assert not (tmp_path / "student" / "layer_norm.py").exists()


def test_export_student_refuses_a_template_that_scores_points(tmp_path):
    course = _course(tmp_path)
    shutil.copyfile(HEADS / "eps_outside.py", course / "template.py")  # a finished head, one mistake in it
    code, output = _invoke("export-student", tmp_path / "student", "--assignment", course, "--install", "course-pkg==1.0")
    assert code == 2 and "scores" in output and len(output.strip().splitlines()) == 1, output
    assert not (tmp_path / "student" / "layer_norm.py").exists()


def test_the_bundles_carry_only_what_the_assignment_declares_or_imports(tmp_path):
    """A course's folder that holds a class's reports, submissions and notes besides the
    assignment: the bundles carry its modules and declared files, none of the rest."""
    import zipfile

    course = _course(tmp_path)
    (course / "old_reports").mkdir()
    (course / "old_reports" / "ada.json").write_text('{"student": "ada", "score": 40}')
    (course / "grades.csv").write_text("student,score\nada,40\n")
    (course / "class").mkdir()
    (course / "class" / "bob.py").write_text("def softmax(x):\n    return x\n")
    (course / "notes.txt").write_text("exam answers\n")
    zipped = tmp_path / "autograder.zip"
    code, output = _invoke("gradescope-bundle", zipped, "--assignment", course)
    assert code == 0, output
    with zipfile.ZipFile(zipped) as archive:
        carried = {name.split("/", 2)[2] for name in archive.namelist() if name.startswith("assignment/")}
    assert {"solution.py", "template.py", "rubric.toml", "handout.md", "calls.py", "checks/layer_norm.py"} <= carried
    assert not carried & {"old_reports/ada.json", "grades.csv", "class/bob.py", "notes.txt"}
    bundle = tmp_path / "prairielearn"
    code, output = _invoke("prairielearn-bundle", bundle, "--assignment", course, "--image", "course/ln:1")
    assert code == 0, output
    carried = {path.relative_to(bundle / "assignment" / "layer_norm").as_posix() for path in (bundle / "assignment").rglob("*") if path.is_file()}
    assert "solution.py" in carried and not carried & {"old_reports/ada.json", "grades.csv", "class/bob.py", "notes.txt"}


def _break(course: Path) -> None:
    solution = course / "solution.py"
    solution.write_text(solution.read_text().replace("mean = X", "mean = 1 + X"))


def _fix(course: Path) -> None:
    solution = course / "solution.py"
    solution.write_text(solution.read_text().replace("mean = 1 + X", "mean = X"))


def _touch_a_check(course: Path) -> None:
    check = course / "checks" / "layer_norm.py"
    check.write_text(check.read_text() + "# edited\n")


def _reword_a_mistake(course: Path) -> None:
    mistakes = course / "mistakes.py"
    mistakes.write_text(mistakes.read_text().replace("adds eps after the square root", "adds eps outside the square root", 1))


EDITS = {"break": _break, "fix": _fix, "touch": _touch_a_check, "reword": _reword_a_mistake}


def _graded(submissions: Path, out: Path, course: Path, isolation: str, cache: Path, **kwargs) -> dict[str, tuple]:
    import os

    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache)
    try:
        reports = grade_folder(submissions, out, chosen_rubric(None, str(course)), Limits(isolation=isolation), **kwargs)
    finally:
        if previous is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = previous
    full = {path.stem: json.loads(path.read_text()) for path in out.glob("*.json") if path.stem != "summary"}
    return {
        student: (report["assignment"], report["score"], [(c["id"], c["status"]) for c in report["checks"]],
                  [d["message"] for d in report["diagnoses"]])
        for student, report in full.items()
    }


def test_edits_between_and_during_batches_never_make_a_warm_cache_grade_differ_from_a_cold_one(isolation):
    """Random edits of a course's files (its reference broken or mended, a check or a mistake's
    words changed), each before a batch or while it runs: every batch's grades, read from a
    warm cache, equal a cold-cache grading of the folder as that batch read it."""
    import tempfile

    from hypothesis import HealthCheck, given, settings, strategies as st

    root = Path(tempfile.mkdtemp(prefix="grader-edits-"))
    warm = root / "warm-cache"
    submissions = root / "class"
    submissions.mkdir()
    for head in ("correct_loops", "eps_outside", "half_written"):
        shutil.copyfile(HEADS / f"{head}.py", submissions / f"{head}.py")
    runs = iter(range(10_000))

    @settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(st.sampled_from(sorted(EDITS)), st.booleans()), min_size=1, max_size=3))
    def batches(edits: list[tuple[str, bool]]) -> None:
        run = next(runs)
        course = _course(root / f"run{run}")
        for number, (edit, during) in enumerate(edits):
            if not during:
                EDITS[edit](course)
            as_read = root / f"run{run}" / f"as_read{number}" / "layer_norm"
            shutil.copytree(course, as_read, ignore=shutil.ignore_patterns("__pycache__"))

            def edit_now(report, done, total, kept, edit=edit, during=during) -> None:  # noqa: ANN001
                if during and done == 1:
                    EDITS[edit](course)

            out = root / f"run{run}" / f"out{number}"
            warm_grades = _graded(submissions, out, course, isolation, warm, on_report=edit_now, regrade=True)
            cold = root / f"run{run}" / f"cold-cache{number}"
            cold_grades = _graded(submissions, root / f"run{run}" / f"cold{number}", as_read, isolation, cold)
            assert warm_grades == cold_grades, (edits, number)

    try:
        batches()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_export_student_refuses_a_template_that_scores_under_the_courses_own_rubric(tmp_path):
    """Exported with a rubric that leaves out the checks the template passes, it still scores
    under the course's own rubric, which grades the students: refused."""
    course = _course(tmp_path)
    template = (HEADS / "correct_loops.py").read_text()
    (course / "template.py").write_text(
        template.split("def layer_norm")[0] + "def layer_norm(X, gamma, beta, eps=1e-5):\n    raise NotImplementedError\n\n\n"
        "def rms_norm(X, gamma, eps=1e-5):\n    raise NotImplementedError\n"
    )
    rubric = tmp_path / "without_row_stats.toml"
    rubric.write_text("\n".join(
        block for block in (course / "rubric.toml").read_text().split("\n\n") if 'id = "row_stats.' not in block
    ))
    code, output = _invoke("export-student", tmp_path / "student", "--assignment", course, "--rubric", rubric,
                           "--install", "course-pkg==1.0")
    assert code == 2 and "rubric.toml" in output and len(output.strip().splitlines()) == 1, output


def test_a_report_the_course_names_with_here_is_never_carried_by_a_bundle(tmp_path):
    course = _course(tmp_path)
    (course / "out").mkdir()
    (course / "out" / "ada.json").write_text('{"schema_version": 1, "grader_version": "0.10.0", "student": "ada"}')
    calls = course / "calls.py"
    calls.write_text(calls.read_text() + '\n_REPORT = here(__file__, "out/ada.json")\n')
    for command in (("gradescope-bundle", tmp_path / "autograder.zip"), ("prairielearn-bundle", tmp_path / "pl", "--image", "c/i:1")):
        code, output = _invoke(*command, "--assignment", course)
        assert code == 2 and "out/ada.json" in output and len(output.strip().splitlines()) == 1, output
    assert not (tmp_path / "autograder.zip").exists() and not (tmp_path / "pl" / "assignment").exists()


@pytest.mark.parametrize(
    "line",
    [
        'import subprocess\n_EPS = subprocess.run(["cat", "{shared}/eps.txt"], capture_output=True).stdout',
        'import sqlite3\n_EPS = sqlite3.connect("file:{shared}/eps.db?mode=ro", uri=True)',
    ],
    ids=["a_program", "a_database"],
)
def test_what_a_course_reads_at_load_by_other_means_than_open_is_refused(tmp_path, line):
    course = _course(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "eps.txt").write_text("1e-5\n")
    import sqlite3

    sqlite3.connect(shared / "eps.db").close()
    calls = course / "calls.py"
    calls.write_text(calls.read_text() + "\n" + line.format(shared=shared) + "\n")
    code, output = _invoke("check", "--assignment", course, HEADS / "correct_loops.py")
    assert code == 2 and len(output.strip().splitlines()) == 1, output
    assert "ran a program" in output or "eps.db, which lies outside the assignment's folder" in output, output


def test_a_report_under_another_name_is_never_carried_by_a_bundle(tmp_path):
    course = _course(tmp_path)
    (course / "data.txt").write_text('{"schema_version": 1, "grader_version": "0.10.0", "student": "ada"}')
    calls = course / "calls.py"
    calls.write_text(calls.read_text() + '\n_DATA = here(__file__, "data.txt")\n')
    code, output = _invoke("gradescope-bundle", tmp_path / "autograder.zip", "--assignment", course)
    assert code == 2 and "data.txt" in output and "report" in output, output


@pytest.mark.parametrize("handed_out", ["extra.py", "README.md", "hint.txt"])
def test_export_student_refuses_any_file_handed_out_that_is_the_reference(tmp_path, handed_out):
    course = _course(tmp_path)
    init = course / "__init__.py"
    text = init.read_text()
    if handed_out == "README.md":
        text = text.replace('"README.md": "handout.md"', '"README.md": "solution.py"')
    else:
        text = text.replace('"README.md": "handout.md"', f'"README.md": "handout.md", "{handed_out}": "solution.py"')
    init.write_text(text)
    code, output = _invoke("export-student", tmp_path / "student", "--assignment", course, "--install", "course-pkg==1.0")
    assert code == 2 and f"template's {handed_out} is the reference head" in output, output


def test_export_student_refuses_a_hint_that_answers_the_checks(tmp_path):
    course = _course(tmp_path)
    (course / "hint.py").write_text("# A hint, with the answers in it\n" + (course / "solution.py").read_text())
    init = course / "__init__.py"
    init.write_text(init.read_text().replace('"README.md": "handout.md"', '"README.md": "handout.md", "hint.py": "hint.py"'))
    code, output = _invoke("export-student", tmp_path / "student", "--assignment", course, "--install", "course-pkg==1.0")
    assert code == 2 and "template's hint.py scores" in output, output
