"""JUnit XML: one ``<testsuite>`` per submission, one ``<testcase>`` per check.

The shape CI tools read (GitHub and GitLab test reports, Jenkins, junitparser): a check
that failed has a ``<failure>`` (a wrong answer) or an ``<error>`` (it raised, hung or
crashed) whose ``message`` is the feedback and whose text adds the counterexample and how
to reproduce it. The score travels as properties of the suite, since JUnit has no points;
the diagnoses (what went wrong, and what the probes showed) are the suite's ``<system-out>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from grader.report import CheckEntry, Report, check_details
from grader.report.safe_text import shown


def _text(value: str) -> str:
    # XML 1.0 forbids most control characters even when escaped, and a student's exception
    # message may hold any of them: they are written as text.
    return shown(value)


def junit_xml(reports: Iterable[Report]) -> str:
    """Every report as one ``<testsuites>`` document (``reports`` are taken one at a time)."""
    root = ET.Element("testsuites", name="attention-grader")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    for report in reports:
        suite = _suite(root, report)
        for key in totals:
            totals[key] += int(suite.get(key))
        seconds += report.duration_s
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def report_xml(report: Report) -> str:
    """JUnit XML for CI test reports (GitHub, GitLab, Jenkins): a testsuite per submission, a
    testcase per check; a wrong answer is a failure, a raise, hang or crash an error."""
    return junit_xml([report])


def _suite(root: ET.Element, report: Report) -> ET.Element:
    failures = sum(check.status == "failed" for check in report.checks)
    errors = sum(check.status in ("error", "timeout") for check in report.checks)
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_text(report.student),
        tests=str(len(report.checks)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{report.duration_s:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("submission", report.submission),
        ("score", f"{report.score:g}"),
        ("max_score", f"{report.max_score:g}"),
        ("status", report.status),
        ("grader_version", report.grader_version),
        ("sandbox", report.sandbox),
    ):
        ET.SubElement(properties, "property", name=name, value=_text(value))
    for check in report.checks:
        _case(suite, check)
    if report.diagnoses:
        lines = ["What went wrong:", *(f"- {diagnosis['message']}" for diagnosis in report.diagnoses)]
        ET.SubElement(suite, "system-out").text = _text("\n".join(lines))
    if report.error:
        ET.SubElement(suite, "system-err").text = _text(report.error)
    return suite


def _case(suite: ET.Element, check: CheckEntry) -> None:
    module = check.id.split(".", 1)[0]
    case = ET.SubElement(suite, "testcase", classname=module, name=check.id, time="0")
    if check.status == "passed":
        return
    tag = "failure" if check.status == "failed" else "error"
    outcome = ET.SubElement(case, tag, message=_text(check.feedback or check.status), type=check.kind or check.status)
    outcome.text = _text("\n".join([check.description, *check_details(check)]))
