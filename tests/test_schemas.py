"""The JSON Schemas of what a batch writes (grader/report/schemas/), held to real outputs.

One small batch (the reference, the template, a buggy head, a file that does not parse
and a notebook whose code shares lines with the buggy head) is graded through the
command with ``--similarity --similarity-threshold 0``, and every report, summary.json and
similarity.json it writes must validate; so must the report ``grader check NOTEBOOK
--json PATH`` writes. The schemas say ``additionalProperties: false`` wherever the
grader controls the keys, so a field added to an output without its description in the
schema (which the documentation's field tables are made from) fails here.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import HEADS, REFERENCE, TEMPLATE, TESTS, VARIANTS
from jsonschema import Draft202012Validator

from grader.cli import cli

SCHEMAS = ("report", "summary", "similarity")
# The notebook's code shares lines of its own with this head's, so the batch has a pair.
BUGGY = VARIANTS / "mask_zero_fill.py"
NOTEBOOK = TESTS / "notebooks" / "lesson_asserts_fail.ipynb"
SYNTAX_ERROR = TESTS / "broken" / "syntax_error.py"
BATCH = {
    "reference.py": REFERENCE,
    "template.py": TEMPLATE,
    "buggy.py": BUGGY,
    "broken.py": SYNTAX_ERROR,
    "notebook.ipynb": NOTEBOOK,
}
NON_FINITE = {"nan", "inf", "-inf"}
CONDITIONS = frozenset({"if", "then", "else"})


def schema(name: str) -> dict[str, Any]:
    """A schema as the installed package holds it (hatchling ships every file under grader/)."""
    text = resources.files("grader.report").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@pytest.fixture(scope="module")
def validators() -> dict[str, Draft202012Validator]:
    return {name: Draft202012Validator(schema(name)) for name in SCHEMAS}


def run(*args: Any):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory, isolation: str) -> Path:
    """OUT of one batch of the five files of BATCH."""
    submissions = tmp_path_factory.mktemp("schema-submissions")
    for name, path in BATCH.items():
        shutil.copyfile(path, submissions / name)
    out = tmp_path_factory.mktemp("schema-reports") / "out"
    result = run(
        "grade", submissions, "--out", out, "--sandbox", isolation, "--jobs", 2,
        "--similarity", "--similarity-threshold", 0,
    )
    assert result.exit_code == 0, result.output
    return out


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def reports(out: Path) -> dict[str, dict[str, Any]]:
    batch_files = ("summary.json", "similarity.json")
    return {path.stem: read(path) for path in sorted(out.glob("*.json")) if path.name not in batch_files}


def assert_valid(validator: Draft202012Validator, instance: Any, what: str) -> None:
    errors = sorted(validator.iter_errors(instance), key=lambda error: list(error.absolute_path))
    assert not errors, f"{what}:\n" + "\n".join(
        f"  at /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}" for error in errors[:10]
    )


def walk(node: Any, where: str = "") -> Any:
    """Every (path, property schema) a schema declares, nested ones and those in $defs
    included; not the conditions (if, then, else) that only constrain declared ones."""
    if isinstance(node, dict):
        for name, value in (node.get("properties") or {}).items():
            yield f"{where}/properties/{name}", value
        for key, value in node.items():
            if key not in CONDITIONS:
                yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


def strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


@pytest.mark.parametrize("name", SCHEMAS)
def test_each_schema_is_a_draft_2020_12_schema_with_an_id_and_every_property_described(name):
    found = schema(name)
    Draft202012Validator.check_schema(found)
    assert found["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert found["$id"] == f"https://attention-grader.readthedocs.io/schemas/{name}.schema.json"
    assert found["title"] and found["description"]
    undescribed = [where for where, declared in walk(found) if not str(declared.get("description", "")).strip()]
    assert not undescribed, f"{name}: properties without a description: {undescribed}"


def test_every_report_of_a_batch_matches_the_report_schema(batch, validators):
    found = reports(batch)
    assert set(found) == {Path(name).stem for name in BATCH}
    for student, report in found.items():
        assert_valid(validators["report"], report, f"{student}.json")
    # What the batch holds is worth validating: each shape the schema describes occurs.
    assert all(report["signature"].startswith("hmac-sha256:") for report in found.values())
    assert found["broken"]["status"] == "error" and found["broken"]["error"]
    assert found["notebook"]["source"]["kind"] == "notebook" and found["reference"]["source"] is None
    kinds = {check["kind"] for report in found.values() for check in report["checks"]}
    assert {None, "wrong_answer", "not_implemented", "import_failed"} <= kinds
    assert any(report["diagnoses"] for report in found.values())
    assert any(picture["student"] is None for picture in found["template"]["pictures"].values())
    counterexamples = [check["counterexample"] for check in found["notebook"]["checks"] if check["counterexample"]]
    assert NON_FINITE & set(strings([example["got"] for example in counterexamples]))


def test_summary_json_matches_the_summary_schema(batch, validators):
    summary = read(batch / "summary.json")
    assert_valid(validators["summary"], summary, "summary.json")
    assert summary["count"] == len(BATCH) and summary["errors"] == 1
    assert "similarity.json" in summary["outputs"]


def test_similarity_json_matches_the_similarity_schema(batch, validators):
    similarity = read(batch / "similarity.json")
    assert_valid(validators["similarity"], similarity, "similarity.json")
    assert similarity["threshold"] == 0 and similarity["pairs"], "the batch should have a pair to validate"
    assert any(pair["code"]["fragments"] for pair in similarity["pairs"])


def test_the_report_grader_check_writes_for_a_notebook_matches_the_report_schema(tmp_path, validators, isolation):
    path = tmp_path / "report.json"
    result = run("check", NOTEBOOK, "--json", path, "--sandbox", isolation)
    assert result.exit_code == 0, result.output
    report = read(path)
    assert_valid(validators["report"], report, "grader check --json")
    assert "signature" not in report and report["source"] is not None and report["source"]["left_out"]


def _failed(report: dict[str, Any]) -> dict[str, Any]:
    return next(check for check in report["checks"] if check["counterexample"])


# Objects of a notebook's report whose keys the grader controls, and where each is.
PLACES = {
    "report": lambda report: report,
    "check": lambda report: report["checks"][0],
    "counterexample": lambda report: _failed(report)["counterexample"],
    "call": lambda report: _failed(report)["counterexample"]["calls"][0],
    "diagnosis": lambda report: report["diagnoses"][0],
    "picture": lambda report: next(iter(report["pictures"].values())),
    "rubric": lambda report: report["rubric"],
    "source": lambda report: report["source"],
    "left_out": lambda report: report["source"]["left_out"][0],
    "bounds": lambda report: report["bounds"],
}


@pytest.mark.parametrize("place", PLACES)
def test_a_report_with_a_key_the_schema_does_not_describe_fails(batch, validators, place):
    report = reports(batch)["notebook"]
    assert_valid(validators["report"], report, "notebook.json")
    PLACES[place](report)["undocumented"] = 1
    with pytest.raises(jsonschema.ValidationError, match="undocumented"):
        validators["report"].validate(report)


@pytest.mark.parametrize("name", ["summary", "similarity"])
def test_a_batch_file_with_a_key_the_schema_does_not_describe_fails(batch, validators, name):
    found = read(batch / f"{name}.json")
    found["undocumented"] = []
    with pytest.raises(jsonschema.ValidationError, match="undocumented"):
        validators[name].validate(found)
