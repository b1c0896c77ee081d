"""The HTML pages: self-contained, well formed, escaped, and showing what the report says."""

from __future__ import annotations

import dataclasses
import html
from html.parser import HTMLParser

from click.testing import CliRunner
from conftest import HEADS, REFERENCE, VARIANTS, head_id

from grader.cli import cli
from grader.report.pages import class_page, student_page

VOID = {"meta", "br", "rect", "input", "img", "link", "col"}
MISSING_SCALE = VARIANTS / "missing_scale.py"


class Structure(HTMLParser):
    """Collects tags and checks that every element that opens also closes, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self.errors.append(tag)


def parsed(page: str) -> Structure:
    structure = Structure()
    structure.feed(page)
    structure.close()
    assert structure.errors == [] and structure.open == []
    return structure


def assert_self_contained(structure: Structure) -> None:
    tags = {tag for tag, _ in structure.tags}
    assert not tags & {"script", "img", "link", "iframe", "object"}
    for _, attrs in structure.tags:
        assert "src" not in attrs
        assert not (attrs.get("href") or "").startswith(("http:", "https:", "//"))


def test_a_student_page_shows_score_mistakes_checks_and_weights(graded_heads):
    report = graded_heads[head_id(MISSING_SCALE)]
    page = student_page(report)
    structure = parsed(page)
    assert_self_contained(structure)
    assert "63/100 points" in page or f"{report.score:g}/" in page
    assert report.diagnoses and html.escape(report.diagnoses[0]["message"].split(",")[0]) in page
    for check in report.checks:
        assert check.id in page
    svgs = [attrs for tag, attrs in structure.tags if tag == "svg"]
    assert len(svgs) == 4  # the worked example and the causal example, this head's beside the reference's
    # Its worked-example weights are not the reference's: the missing scale sharpens them.
    assert report.pictures["worked_example"]["student"] != report.pictures["worked_example"]["reference"]


def test_the_reference_page_draws_the_same_weights_twice(graded_heads):
    report = graded_heads[head_id(REFERENCE)]
    for picture in report.pictures.values():
        assert picture["student"] == picture["reference"]
    causal = report.pictures["causal"]["student"]
    assert all(causal[i][j] == 0 for i in range(4) for j in range(i + 1, 4))


def test_whatever_a_report_holds_is_escaped(graded_heads):
    report = dataclasses.replace(
        graded_heads[head_id(MISSING_SCALE)],
        student="<script>alert(1)</script>",
        diagnoses=[{"id": "x", "message": "<img src=x onerror=alert(1)>"}],
    )
    page = student_page(report)
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "<img" not in page
    assert_self_contained(parsed(class_page([report], {report.student: "a page.html"})))


def test_the_class_page_counts_scores_checks_and_mistakes(graded_heads):
    reports = list(graded_heads.values())
    links = {report.student: f"{report.student}.html" for report in reports}
    page = class_page(reports, links)
    structure = parsed(page)
    assert_self_contained(structure)
    hrefs = {attrs["href"] for tag, attrs in structure.tags if tag == "a"}
    assert hrefs == set(links.values())
    assert "missing_scale" in page and "attention.scaling" in page
    assert f"{len(reports)} submissions" in page


def test_the_cli_writes_the_pages(tmp_path, isolation):
    page = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["check", str(MISSING_SCALE), "--html", str(page), "--sandbox", isolation])
    assert result.exit_code == 0, result.output
    assert "What went wrong" in page.read_text()
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ada.py").write_bytes(REFERENCE.read_bytes())
    (folder / "bea.py").write_bytes(MISSING_SCALE.read_bytes())
    result = CliRunner().invoke(cli, ["grade", str(folder), "--out", str(tmp_path / "out"), "--html", "--sandbox", isolation])
    assert result.exit_code == 0, result.output
    index = (tmp_path / "out" / "index.html").read_text()
    assert 'href="ada.html"' in index and 'href="bea.html"' in index
    # A student's page is made from the report in full (the batch keeps only summaries).
    page = (tmp_path / "out" / "bea.html").read_text()
    assert "from attention import" in page and "Attention weights A" in page
