"""Every way a report can be written, by name: what ``grader check --format NAME`` offers.

A format is a function ``Report -> str``. To add one, write its module here and name
it in ``REPORT_FORMATS``.
"""

from __future__ import annotations

from collections.abc import Callable

from grader.report import Report, render_text, to_json
from grader.report.formats import classroom, gradescope, junit, markdown, prairielearn
from grader.report.pages import student_page

REPORT_FORMATS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": to_json,
    "html": student_page,
    "gradescope": gradescope.results_json,
    "prairielearn": prairielearn.results_json,
    "junit": junit.report_xml,
    "classroom": classroom.encoded_result,
    "markdown": markdown.job_summary,
}
