"""Heads whose self_attention computes attention itself, with attention's mistake in it.

A self_attention that does not call attention is read step by step as attention is, and
each of attention's steps it gets wrong has its own id (``self_attention_<id>``). Each
head here is made from the one-mistake head of ``tests/heads/buggy/`` whose mistake is such
a step: its attention becomes self_attention's own code, and attention is the lesson's.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.assignments.attention_head.mistakes import INLINE, KNOWN, UNPROVABLE_INLINE, inline_id

ROOT = Path(__file__).resolve().parent.parent
BUGGY = ROOT / "tests" / "heads" / "buggy"
DECLARED = re.compile(r"^# diagnosis:(.*)$", re.MULTILINE)
LESSON = '''

def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    return own_attention(X @ Wq, X @ Wk, X @ Wv, mask)
'''


# What a step no answer of self_attention proves is told instead (see UNPROVABLE_INLINE): the
# same numbers, made another way, or nothing.
UNPROVABLE = {step: "" for step in UNPROVABLE_INLINE} | {"scores_transposed": "self_attention_swapped_projections"}


def heads() -> dict[str, tuple[str, str]]:
    """Each head's source and the id it must be told ("": none), by name."""
    made = {}
    inline = {mistake.same_as: mistake.id for mistake in INLINE} | {"mask_ignored": inline_id("mask_ignored")} | UNPROVABLE
    for path in sorted(BUGGY.glob("*.py")):
        source = path.read_text()
        declared = [part.strip() for part in DECLARED.search(source).group(1).split(",")]
        if len(declared) != 1 or declared[0] not in inline or KNOWN.by_id[declared[0]].function != "attention":
            continue
        body = re.sub(r"^# (must-fail|diagnosis):.*$", "", source, flags=re.MULTILINE)
        body = re.sub(r"\bdef attention\(", "def own_attention(", body)
        body = re.sub(r"\bdef self_attention\(", "def _unused_self_attention(", body)
        made[path.stem] = (body + LESSON, inline[declared[0]])
    return made


def write(folder: Path) -> dict[str, Path]:
    paths = {}
    for name, (source, _) in heads().items():
        paths[name] = folder / f"inline__{name}.py"
        paths[name].write_text(source)
    return paths
