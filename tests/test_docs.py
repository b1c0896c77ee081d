"""The documentation site builds with every warning an error, and README stays the short
front door it is meant to be: what the grader is, the two commands, a link per reader.

Every example on the site's pages runs in ``docs/`` itself (``python -m pytest docs``,
see ``docs/conftest.py``).
"""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT

from grader import assignments
from grader.assignments.rubric import load_rubric

README = ROOT / "README.md"


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"), str(tmp_path)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index", "students/check-a-file", "reference/cli", "reference/authoring", "reference/attention-head"):
        assert (tmp_path / f"{page}.html").is_file(), page
    cli = (tmp_path / "reference" / "cli.html").read_text(encoding="utf-8")
    assert "export-student" in cli and "--install" in cli  # written from the Click commands themselves


def test_the_catalogue_pages_name_every_mistake_and_check_of_each_assignment():
    """The reference pages' tables come from each assignment's own catalogue and rubric: every
    id is there once, with the sentence the student reads."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import generated
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    for name in assignments.NAMES:
        assignment = assignments.get(name)
        rows = re.findall(r"^\| `(\w+)` \|", generated.mistakes_table(name), re.MULTILINE)
        assert sorted(rows) == sorted(mistake.id for mistake in assignment.mistakes().mistakes)
        checks = re.findall(r"^\| `([\w.]+)` \|", generated.checks_table(name), re.MULTILINE)
        assert checks == list(load_rubric(assignment.path(assignment.rubric), assignment).check_ids)


def test_readme_is_short_and_its_links_lead_somewhere():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert local, "README links to the pages of each reader"
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []
    for command in ("python -m pip install -e . && grader check reference/attention.py",
                    "python -m pip install -e '.[test]' && python -m pytest"):
        assert command in text


def test_ci_runs_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pip install --quiet -e '.[test]'" in ci and "\npython -m pytest\n" in ci
