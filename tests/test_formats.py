"""Each report format, read the way its consumer reads it: Gradescope's results.json
against a JSON Schema of its spec, JUnit XML through junitparser, GitHub Classroom's
result decoded and summed as its reporter does, Canvas's CSV header as its importer
checks it."""

from __future__ import annotations

import base64
import csv
import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml

from grader.formats import REPORT_FORMATS, classroom, gradescope, junit, markdown
from grader.formats.gradebook import canvas_csv, grades_csv
from grader.report import Report, score_summary
from grader.scoring import failed_run

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gradescope_results.schema.json").read_text())
BUGGY = "buggy__missing_scale"  # fails several checks, with counterexamples and a diagnosis
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


def test_grades_csv_has_a_column_per_check(graded_heads, rubric):
    reports = [graded_heads[BUGGY], graded_heads[TEMPLATE]]
    rows = _rows(grades_csv(reports, rubric))
    assert rows[0] == ["student", "score", "max_score", "status", *rubric.check_ids]
    for row, report in zip(rows[1:], reports, strict=True):
        points = dict(zip(rubric.check_ids, map(float, row[4:]), strict=True))
        assert points == {check.id: check.points for check in report.checks}
        assert float(row[1]) == report.score == sum(points.values())
