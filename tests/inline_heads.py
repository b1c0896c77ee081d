"""Heads whose self_attention computes attention itself, with attention's mistake in it.

A self_attention that does not call attention is read step by step as attention is, and
each of attention's steps it gets wrong has its own id (``self_attention_<id>``). Each head
is a file of ``grader/assignments/attention_head/variants/inline/``, made from the
one-mistake head of ``variants/`` whose mistake is such a step: its attention became
self_attention's own code (``own_attention``), and attention is the lesson's. Its
``# diagnosis:`` line says what it must be told: the inline id, or ``none`` where no answer
of self_attention proves the step (the same numbers, made another way).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INLINE = ROOT / "grader" / "assignments" / "attention_head" / "variants" / "inline"
DECLARED = re.compile(r"^# diagnosis:(.*)$", re.MULTILINE)


def heads() -> dict[str, tuple[str, str]]:
    """Each head's source and the id it must be told ("": none), by name."""
    made = {}
    for path in sorted(INLINE.glob("*.py")):
        source = path.read_text()
        told = DECLARED.search(source).group(1).strip()
        made[path.stem] = (source, "" if told == "none" else told)
    return made


def write(folder: Path) -> dict[str, Path]:
    paths = {}
    for name, (source, _) in heads().items():
        paths[name] = folder / f"inline__{name}.py"
        paths[name].write_text(source)
    return paths
