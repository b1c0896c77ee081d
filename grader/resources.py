"""Where the grader's data files live: each assignment's reference head, rubric and
student template (grader.assignments names them).

In a checkout (or an editable install) they sit beside the package, at the top of the
repository; a wheel carries copies under ``grader/_bundled`` (see pyproject.toml).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


# The folders of a checkout that hold the grader's data files (a wheel's are in _bundled).
DATA_FOLDERS = ("reference", "rubrics", "student_template")


def is_shipped(path: Path) -> bool:
    """Whether ``path`` is one of the grader's own files (its package, or a data file): a
    course that extends a shipped assignment reads the shipped reference, which the
    grader's version, not the course's folder, pins."""
    real = path.resolve()
    return any(root in real.parents for root in (PACKAGE, *(PACKAGE.parent / folder for folder in DATA_FOLDERS)))


def project_file(relative: str) -> Path:
    """The path of a data file such as ``rubrics/multi_head.toml``."""
    for root in (PACKAGE / "_bundled", PACKAGE.parent):
        candidate = root / relative
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"the grader's data file {relative} is missing from this installation")


def examples_cache() -> Path:
    """Where recorded Hypothesis examples are kept between runs (see grader.engine.examples)."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "attention-grader" / "examples"
