"""Rubric files: the bundled one, and every way a rubric can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.assignments.rubric import available_check_ids, load_rubric
from grader.errors import RubricError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rubric.toml"
    path.write_text(text)
    return path


def test_bundled_rubric_scores_every_check_and_keeps_bonus_out_of_max(rubric):
    assert set(rubric.check_ids) == available_check_ids()
    assert rubric.max_score == 100
    assert [c.id for c in rubric.checks if c.bonus] == ["extension.batched"]


def test_a_small_rubric_keeps_its_order(tmp_path):
    rubric = load_rubric(
        write(
            tmp_path,
            '[[checks]]\nid = "mask.arbitrary"\npoints = 2\n\n'
            '[[checks]]\nid = "softmax.axis"\npoints = 1.5\nvisibility = "hidden"\n',
        )
    )
    assert rubric.check_ids == ("mask.arbitrary", "softmax.axis")
    assert rubric.max_score == 3.5
    assert rubric.checks[1].visibility == "hidden"
    assert rubric.name == "rubric"


@pytest.mark.parametrize(
    "text, message",
    [
        ("not = [toml", "not valid TOML"),
        ('name = "x"\n', "no \\[\\[checks\\]\\]"),
        ('[[checks]]\nid = "softmax.nope"\npoints = 1\n', "no check is called 'softmax.nope'"),
        ('[[checks]]\nid = "softmax.axis"\npoints = -1\n', "points must be a number >= 0"),
        ('[[checks]]\nid = "softmax.axis"\npoints = true\n', "points must be a number"),
        ('[[checks]]\nid = "softmax.axis"\npoints = 1\nvisibility = "secret"\n', "visibility must be one of"),
        ('[[checks]]\nid = "softmax.axis"\npoints = 1\nbonus = "yes"\n', "bonus must be true or false"),
        ('[[checks]]\nid = "softmax.axis"\npoints = 1\npoints_typo = 2\n', "unknown keys: points_typo"),
        ('[[checks]]\nid = "softmax.axis"\npoints = 1\n[[checks]]\nid = "softmax.axis"\npoints = 1\n', "twice"),
    ],
)
def test_bad_rubrics_are_refused_with_the_reason(tmp_path, text, message):
    with pytest.raises(RubricError, match=message):
        load_rubric(write(tmp_path, text))


def test_a_missing_rubric_is_a_rubric_error(tmp_path):
    with pytest.raises(RubricError, match="cannot read rubric"):
        load_rubric(tmp_path / "missing.toml")
