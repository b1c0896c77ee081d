"""How well ``--similarity`` tells disguised copies from independent heads, and how fast.

    python benchmarks/similarity_quality.py

Independent heads: tests/heads/second_set/ (written blind, in many styles, most of them
close to the lesson's code) and tests/heads/correct/. Derived heads: each of the first
16 independent heads disguised one way (tests/disguises.py: identifiers renamed,
functions reordered, comments and blank lines changed, reformatted), and 4 heads into
which another's ``attention`` is copied (each in place of the head it was, since only
the copy is submitted). Prints, at the default threshold, how many
derived pairs are found and how many independent pairs are flagged (code signal only:
no grading), then the time the analysis takes on 2,000 files.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from disguises import DISGUISES, transplanted  # noqa: E402
from grader.similarity import DEFAULT_THRESHOLD, analyse  # noqa: E402


def quality_set() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Heads by id, and the pairs that are derived (one copied from the other)."""
    heads = sorted((ROOT / "tests" / "heads" / "second_set").glob("*.py")) + sorted((ROOT / "tests" / "heads" / "correct").glob("*.py"))
    files = {head.stem: head.read_text(encoding="utf-8") for head in heads}
    derived = set()
    originals = sorted(files)[:16]
    for original, (name, disguise) in zip(originals, itertools.cycle(DISGUISES.items())):
        copy = f"zz_{original}_{name}"
        files[copy] = disguise(files[original])
        derived.add(tuple(sorted((original, copy))))
    for donor, own in zip(sorted(files)[16:20], sorted(files)[20:24]):
        # The copier's own work stands in for its head: only the copy is submitted.
        copy = f"zz_{own}_with_{donor}_attention"
        files[copy] = transplanted(files[donor], files.pop(own))
        derived.add(tuple(sorted((donor, copy))))
    return files, derived


def main() -> None:
    files, derived = quality_set()
    result = analyse([(student, code, None) for student, code in files.items()])
    flagged = {(pair["a"], pair["b"]) for pair in result["pairs"]}
    independent = len(files) * (len(files) - 1) // 2 - len(derived)
    print(f"{len(files)} heads, threshold {DEFAULT_THRESHOLD}")
    print(f"  derived pairs found: {len(flagged & derived)} of {len(derived)}")
    for pair in sorted(derived - flagged):
        print(f"    missed: {pair[0]} ~ {pair[1]}")
    print(f"  independent pairs flagged: {len(flagged - derived)} of {independent}")
    for pair in sorted(flagged - derived):
        print(f"    flagged: {pair[0]} ~ {pair[1]}")
    many = [(f"s{number:04d}", code) for number, code in zip(range(2000), itertools.cycle(files.values()))]
    started = time.perf_counter()
    result = analyse([(student, code, None) for student, code in many])
    print(f"2,000 files ({len(files)} heads repeated, so every repeat is a copy): "
          f"{time.perf_counter() - started:.1f} s, {len(result['pairs'])} pairs listed")


if __name__ == "__main__":
    main()
