"""Each report format, read the way its consumer reads it: Gradescope's results.json
against a JSON Schema of its spec, JUnit XML through junitparser, GitHub Classroom's
result decoded and summed as its reporter does, Canvas's CSV header as its importer
checks it."""

from __future__ import annotations

import base64
import csv
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml

from grader.engine.scoring import failed_run
from grader.report import Report, score_summary
from grader.report.formats import (
    REPORT_FORMATS,
    classroom,
    gradescope,
    junit,
    markdown,
    prairielearn,
)
from grader.report.formats.gradebook import canvas_clashes, canvas_csv, grades_csv

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gradescope_results.schema.json").read_text())
BUGGY = "variants__missing_scale"  # fails several checks, with counterexamples and a diagnosis
REFERENCE = "reference__attention"
TEMPLATE = "student_template__attention"  # every check an error: not implemented


def _with_visibility(report: Report, visibility: dict[str, str]) -> Report:
    checks = [replace(check, visibility=visibility.get(check.id, check.visibility)) for check in report.checks]
    return replace(report, checks=checks)


@pytest.mark.parametrize("head", [BUGGY, REFERENCE, TEMPLATE])
def test_gradescope_results_follow_the_spec(graded_heads, head):
    report = graded_heads[head]
    results = json.loads(gradescope.results_json(report))
    jsonschema.validate(results, SCHEMA)
    assert results["score"] == report.score
    assert isinstance(results["execution_time"], (int, float))
    assert sum(test["max_score"] for test in results["tests"]) == report.max_score
    assert sum(test["score"] for test in results["tests"]) == report.score
    for test, check in zip(results["tests"], report.checks, strict=True):
        assert test["name"].startswith(check.id)
        assert (test["status"] == "passed") == (check.status == "passed")
        assert test["visibility"] == check.visibility
        if check.status != "passed" and check.feedback:
            assert check.feedback in test["output"]


def test_gradescope_output_hides_what_hidden_checks_found(graded_heads):
    report = graded_heads[BUGGY]
    failed = [check.id for check in report.checks if check.status != "passed"]
    assert report.diagnoses and failed
    shown = json.loads(gradescope.results_json(report))
    assert report.diagnoses[0]["message"] in shown["output"]
    hidden = json.loads(gradescope.results_json(_with_visibility(report, {failed[0]: "hidden"})))
    assert report.diagnoses[0]["message"] not in hidden["output"]
    assert next(test for test in hidden["tests"] if test["name"].startswith(failed[0]))["visibility"] == "hidden"


def test_gradescope_output_gives_no_total_when_checks_are_hidden(graded_heads):
    report = graded_heads[BUGGY]
    failed = next(check for check in report.checks if check.status != "passed")
    output = gradescope.results(_with_visibility(report, {failed.id: "after_due_date"}))["output"]
    assert score_summary(report) not in output and "/100" not in output
    visible = [c for c in report.checks if c.id != failed.id and not c.bonus]
    assert f"{sum(c.points for c in visible):g}/{sum(c.max_points for c in visible):g}" in output


def test_gradescope_output_keeps_the_graders_own_errors_from_students(graded_heads, rubric):
    report = failed_run(rubric, "pytest said: mask.secret_check broke", kind="grader_error", student="x",
                        submission="x.py", submission_sha256="", duration_s=0.0)
    output = gradescope.results(report)["output"]
    assert "secret_check" not in output and "could not finish" in output


def test_gradescope_bonus_is_extra_credit(graded_heads):
    report = graded_heads[REFERENCE]
    bonus = [test for test in gradescope.results(report)["tests"] if test["name"].endswith("(bonus)")]
    assert bonus and all(test["max_score"] == 0 and test["score"] > 0 for test in bonus)


@pytest.mark.parametrize("head", [BUGGY, REFERENCE, TEMPLATE])
def test_junit_parses_with_junitparser(graded_heads, head, tmp_path):
    report = graded_heads[head]
    path = tmp_path / "junit.xml"
    path.write_text(junit.report_xml(report), encoding="utf-8")
    suites = list(JUnitXml.fromfile(str(path)))
    assert len(suites) == 1
    suite = suites[0]
    cases = list(suite)
    assert [case.name for case in cases] == [check.id for check in report.checks]
    assert suite.tests == len(report.checks)
    for case, check in zip(cases, report.checks, strict=True):
        results = case.result
        if check.status == "passed":
            assert results == []
            continue
        (result,) = results
        assert isinstance(result, Failure if check.status == "failed" else Error)
        assert result.type == check.kind
        if check.feedback:
            assert result.message == check.feedback
        if check.counterexample and check.kind == "wrong_answer":
            assert "reproduce it:" in result.text
    told = ET.parse(path).getroot().findtext("testsuite/system-out") or ""
    assert all(diagnosis["message"] in told for diagnosis in report.diagnoses)
    assert bool(told) == bool(report.diagnoses)


def test_junit_survives_control_characters_from_the_submission(graded_heads, tmp_path):
    report = graded_heads[TEMPLATE]
    nasty = "boom \x1b[31m\x00\x07 <tag> & ]]>"
    report = replace(report, student="a\x01b", checks=[replace(check, feedback=nasty) for check in report.checks])
    path = tmp_path / "junit.xml"
    path.write_text(junit.junit_xml([report, report]), encoding="utf-8")
    suites = list(JUnitXml.fromfile(str(path)))
    assert len(suites) == 2
    message = list(suites[0])[0].result[0].message
    assert message.startswith("boom ") and "<tag> & ]]>" in message and "\x00" not in message


@pytest.mark.parametrize("head", [BUGGY, REFERENCE, TEMPLATE])
def test_classroom_result_adds_up_as_the_reporter_adds_it(graded_heads, head):
    report = graded_heads[head]
    encoded = classroom.encoded_result(report)
    assert encoded.count("\n") == 1 and encoded.endswith("\n")  # one line, as $GITHUB_OUTPUT needs
    result = json.loads(base64.b64decode(encoded))
    # autograding-grading-reporter: total = sum of tests[].score, out of the runner's max_score.
    assert result["version"] == 1
    assert result["max_score"] == report.max_score
    assert sum(test["score"] for test in result["tests"]) == report.score
    assert [test["name"].split(" ")[0] for test in result["tests"]] == [check.id for check in report.checks]
    assert all(test["status"] in ("pass", "fail", "error") for test in result["tests"])
    expected = "pass" if head == REFERENCE else ("error" if report.status == "error" else "fail")
    assert result["status"] == expected


def test_markdown_summary_is_a_table_that_submissions_cannot_break(graded_heads):
    nasty = "x | ![i](https://evil.example/p.png) [t](https://evil.example) <script>alert(1)</script>\n| a |"
    report = graded_heads[BUGGY]
    checks = [replace(check, description=nasty) for check in report.checks]
    report = replace(report, student=nasty, error=nasty, checks=checks,
                     diagnoses=[{"id": "d", "message": nasty}])
    text = markdown.job_summary(report)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == len(report.checks)
    assert all(row.count(" | ") == 3 for row in rows)
    assert "<script>" not in text and "](" not in text and "![" not in text
    assert "reproduce it:" not in text  # a report with an error lists no failures


def test_classroom_status_follows_the_graded_checks(graded_heads, rubric):
    reference = graded_heads[REFERENCE]
    no_bonus = replace(reference, checks=[
        replace(check, status="failed", points=0.0) if check.bonus else check for check in reference.checks
    ])
    assert classroom.result(no_bonus)["status"] == "pass"  # full marks without the bonus
    timed_out = replace(reference, checks=[
        replace(check, status="timeout", points=0.0) if check.id == "attention.shapes" else check
        for check in reference.checks
    ])
    assert classroom.result(timed_out)["status"] == "fail"
    assert {test["name"]: test["status"] for test in classroom.result(timed_out)["tests"]}["attention.shapes"] == "error"
    unimportable = failed_run(rubric, "SyntaxError on line 3", kind="import_failed", student="x",
                              submission="x.py", submission_sha256="", duration_s=0.0)
    assert classroom.result(unimportable)["status"] == "error"


def test_every_format_renders_every_head(graded_heads):
    for report in graded_heads.values():
        for name, render in REPORT_FORMATS.items():
            assert render(report).strip(), name


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.splitlines()))


def test_canvas_csv_has_the_header_canvas_accepts(graded_heads):
    reports = [graded_heads[BUGGY], graded_heads[REFERENCE]]
    reports.append(replace(graded_heads[BUGGY], student="lovelaceada_LATE_123456_987654_attention"))
    reports.append(replace(graded_heads[BUGGY], student="=cmd()"))
    rows = _rows(canvas_csv(reports, "Attention head (42)", 100.0))
    header = rows[0]
    # Canvas's gradebook importer: row[0] names the student, row[1] the id, and the
    # student columns end with Section; the rest are assignments.
    assert "Student" in header[0] and "ID" in header[1] and header[4] == "Section"
    assert header[5:] == ["Attention head (42)"]
    assert rows[1][0] == "Points Possible" and rows[1][5] == "100"
    by_student = {row[0]: row for row in rows[2:]}
    assert by_student["lovelaceada"][1] == "123456"
    assert by_student[BUGGY][3] == BUGGY and by_student[BUGGY][5] == f"{graded_heads[BUGGY].score:g}"
    assert "'=cmd()" in by_student  # a formula is text
    assert all(len(row) == 6 for row in rows)


def test_canvas_leaves_no_score_where_the_grader_failed(rubric):
    report = failed_run(rubric, "the check process stopped", kind="grader_error", student="ada",
                        submission="ada.py", submission_sha256="", duration_s=0.0)
    rows = _rows(canvas_csv([report], "A", 100.0))
    assert rows[2] == ["ada", "", "", "ada", "", ""]


def test_canvas_leaves_no_score_for_a_user_two_submissions_name(graded_heads):
    """Two files in one Canvas attempt (or ROB and rob, which Canvas matches alike): which
    counts is the instructor's call, so neither score is imported."""
    reports = [
        replace(graded_heads[BUGGY], student="eve_444444_7894_attention"),
        replace(graded_heads[REFERENCE], student="eve_444444_7895_attention-1"),
        replace(graded_heads[REFERENCE], student="rob"),
        replace(graded_heads[BUGGY], student="ROB"),
        replace(graded_heads[REFERENCE], student="lovelaceada_123456_987654_attention"),
    ]
    assert canvas_clashes(reports) == {
        "444444": ["eve_444444_7894_attention", "eve_444444_7895_attention-1"], "rob": ["rob", "ROB"],
    }
    scores = [row[5] for row in _rows(canvas_csv(reports, "A", 100.0))[2:]]
    assert scores == ["", "", "", "", f"{graded_heads[REFERENCE].score:g}"]


def test_grades_csv_has_a_column_per_check(graded_heads, rubric):
    reports = [graded_heads[BUGGY], graded_heads[TEMPLATE]]
    rows = _rows(grades_csv(reports, rubric))
    assert rows[0] == ["student", "score", "max_score", "status", *rubric.check_ids]
    for row, report in zip(rows[1:], reports, strict=True):
        points = dict(zip(rubric.check_ids, map(float, row[4:]), strict=True))
        assert points == {check.id: check.points for check in report.checks}
        assert float(row[1]) == report.score == sum(points.values())


PRAIRIELEARN_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "prairielearn_results.schema.json").read_text())


def _prairielearn(report: Report) -> dict:
    text = prairielearn.results_json(report)
    assert len(text.encode("utf-8")) <= 1_000_000
    results = json.loads(text)
    jsonschema.validate(results, PRAIRIELEARN_SCHEMA)
    return results


@pytest.mark.parametrize("head", [BUGGY, REFERENCE, TEMPLATE])
def test_prairielearn_results_follow_the_docs(graded_heads, head):
    report = graded_heads[head]
    results = _prairielearn(report)
    assert results["gradable"] is True
    assert results["score"] == min(1.0, report.score / report.max_score)
    # Every test has points and max_points, or PrairieLearn draws no points at all; their
    # sums are the badge it shows beside the score.
    assert sum(test["points"] for test in results["tests"]) == report.score
    assert sum(test["max_points"] for test in results["tests"]) == report.max_score
    for test, check in zip(results["tests"], report.checks, strict=True):
        assert test["name"].split(" ")[0] == check.id and test["description"] == check.description
        assert test["points"] == check.points
        if check.status == "passed":
            assert test["message"] == test["output"] == ""
        else:
            assert test["message"] == (check.feedback or "")
            if check.counterexample and check.kind == "wrong_answer":
                assert test["output"].startswith("reproduce it:")
    assert score_summary(report) in results["message"]


def test_prairielearn_leaves_out_what_checks_out_of_sight_found(graded_heads):
    report = graded_heads[BUGGY]
    failed = [check for check in report.checks if check.status != "passed" and not check.bonus]
    assert report.diagnoses and len(failed) >= 2
    shown = _prairielearn(report)
    assert report.diagnoses[0]["message"] in shown["output"]
    hidden = {failed[0].id: "hidden", failed[1].id: "after_due_date"}
    results = _prairielearn(_with_visibility(report, hidden))
    text = json.dumps(results)
    for check_id in hidden:
        assert check_id not in text
    visible_feedback = {check.feedback for check in report.checks if check.id not in hidden}
    for check in failed[:2]:
        if check.feedback not in visible_feedback:
            assert json.dumps(check.feedback)[1:-1] not in text
    assert report.diagnoses[0]["message"] not in text
    # The grade of record is the real one, and the tests still add up to it.
    assert results["score"] == shown["score"] == report.score / report.max_score
    (out_of_sight,) = [test for test in results["tests"] if test["name"] == prairielearn.OUT_OF_SIGHT]
    assert out_of_sight["points"] == 0 and out_of_sight["max_points"] == failed[0].max_points + failed[1].max_points
    assert sum(test["points"] for test in results["tests"]) == report.score
    assert len(results["tests"]) == len(report.checks) - 1


def test_prairielearn_bonus_is_a_test_worth_nothing(graded_heads):
    report = graded_heads[REFERENCE]
    assert report.score > report.max_score
    results = _prairielearn(report)
    assert results["score"] == 1.0  # PrairieLearn refuses a score above 1
    bonus = [test for test in results["tests"] if test["name"].endswith("(bonus)")]
    assert bonus and all(test["max_points"] == 0 and test["points"] > 0 for test in bonus)


@pytest.mark.parametrize("kind, reason", [
    ("unusable_submission", "attention.py is empty: write the four functions from the lesson in it"),
    ("import_failed", "attention.py could not be imported: SyntaxError at line 8: expected ':'"),
    ("import_timeout", "importing attention.py took longer than 20 s"),
])
def test_prairielearn_file_that_cannot_be_graded_costs_no_attempt(rubric, kind, reason):
    report = failed_run(rubric, reason, kind=kind, student="x", submission="x.py", submission_sha256="",
                        duration_s=0.0)
    results = _prairielearn(report)
    assert results["gradable"] is False and results["format_errors"] == [reason]
    assert "score" not in results and "tests" not in results


def test_prairielearn_grader_failure_is_not_a_zero(graded_heads, rubric):
    crashed = failed_run(rubric, "pytest said: mask.secret_check broke", kind="grader_error", student="x",
                         submission="x.py", submission_sha256="", duration_s=0.0)
    # One check the grader could not run makes the whole grade unreliable, not a lower one.
    report = graded_heads[REFERENCE]
    one_broken = replace(report, checks=[
        replace(check, status="error", kind="grader_error", points=0.0, feedback="mask.secret_check broke")
        if check.id == "mask.arbitrary" else check for check in report.checks
    ])
    for broken in (crashed, one_broken):
        results = _prairielearn(broken)
        assert results["gradable"] is False and "score" not in results
        assert results["format_errors"] == [prairielearn.GRADER_FAILED]
        assert "secret_check" not in json.dumps(results)


def test_prairielearn_results_stay_under_1_mb(graded_heads, rubric):
    report = graded_heads[BUGGY]
    # Escaped in JSON, each of these characters takes 6 or 12 bytes.
    huge = "start " + "é\x01😀<" * 200_000
    checks = [replace(check, status="failed", points=0.0, feedback=huge, kind="wrong_answer",
                      counterexample={"repro": huge, "calls": [], "expected": None, "got": None})
              for check in report.checks]
    flooded = replace(report, checks=checks, diagnoses=[{"id": "d", "message": huge}])
    text = prairielearn.results_json(flooded)
    assert text == prairielearn.results_json(flooded)  # the same cut every time
    results = _prairielearn(flooded)
    assert len(results["tests"]) == len(report.checks)
    assert all(test["message"].startswith("start é") and "more characters not shown" in test["message"]
               for test in results["tests"])
    assert len(text.encode("utf-8")) > 500_000  # cut to fit, not cut to nothing
    unusable = failed_run(rubric, huge, kind="unusable_submission", student="x", submission="x.py",
                          submission_sha256="", duration_s=0.0)
    assert _prairielearn(unusable)["format_errors"][0].startswith("start é")
