"""The code a kernel has run, as the notebook the grader reads."""

from __future__ import annotations

import re
from typing import Any

from grader.sources.notebook import kernel_history

# The grader's own lines: they are how the student asks for a grade, not part of the code
# graded, so they are blanked (the lines around them keep their numbers).
GRADER_LINE = re.compile(r"^\s*%(?:grade\b|(?:re)?load_ext\s+grader\s*$)")


def ran(shell: Any) -> list[str]:
    """The cells ``shell`` (an IPython shell) has run, In [1] first, as they were typed
    (``In`` holds them as IPython rewrote them: magics become calls)."""
    raw = getattr(shell.history_manager, "input_hist_raw", None)
    cells = list(raw if raw is not None else shell.user_ns.get("_ih", []))
    return [str(cell) for cell in cells[1:]]  # In [0] is always empty


def notebook(cells: list[str]) -> bytes:
    """The notebook the grader reads for ``cells``: one cell per run, without the grader's lines."""
    return kernel_history(["\n".join("" if GRADER_LINE.match(line) else line for line in cell.split("\n")) for cell in cells])
