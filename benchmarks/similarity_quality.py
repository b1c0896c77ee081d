"""How well ``--similarity`` tells disguised copies from independent heads, and how fast.

    python benchmarks/similarity_quality.py              # grades the set (a minute or two)
    python benchmarks/similarity_quality.py --code-only  # the code signal alone, no grading
    python benchmarks/similarity_quality.py --code-only --dolos DOLOS/samples/python/benchmark_files

Independent heads: tests/heads/second_set/ (written blind, in many styles, most of them
close to the lesson's code), tests/heads/correct/ and grader/assignments/attention_head/variants/ (another
author's: many make the same mistakes as second_set's, so independent pairs share wrong
answers). Derived heads: 16 independent heads disguised one way each
(tests/disguises.py: identifiers renamed, functions reordered, comments and blank lines
changed, reformatted), 4 heads into which another's ``attention`` is copied (each in
place of the head it was, since only the copy is submitted), and 4 heads whose mistake
the grader's catalogue does not name (``# diagnosis: none``) disguised one way each:
the copies the behaviour signal is for.

Prints, at the default threshold, how many derived pairs are found (apart: those whose
original has almost no code of its own beyond the lesson's, whose copies no signal can
tell from independent heads making the same change) and how many independent pairs are
flagged: first by the code alone, then (unless --code-only) from
``grader grade --similarity`` on the set written to a folder, which adds the behaviour
signal, with the signal that listed each pair. Then the time the analysis takes on 2,000
files (the set repeated: every repeat is a copy, the worst case for the index).

``--dolos DIR``: also the Dolos project's Python benchmark (``samples/python/
benchmark_files`` of github.com/dodona-edu/dolos, MIT; not copied here): UPGMA_A, an
independent UPGMA_B, and files derived from A (an exact copy, lines moved, functions
moved, variables renamed, B's ``loadtxt`` copied in, and A and B combined). Its README
says which parts of which files match; the pairs counted derived here are every two
files made from A, and B with the two that hold B's code. By code alone, on the eight
files as they are and then inside the quality set's batch (alone, A's code is in seven
of eight files: what most of the class shares, which counts for nothing by design).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from disguises import DISGUISES, transplanted  # noqa: E402
from grader import assignments  # noqa: E402
from grader.similarity import DEFAULT_THRESHOLD, analyse, given_code  # noqa: E402
from grader.similarity.code import boilerplate, fingerprints  # noqa: E402

HEAD_SETS = {"set2": "tests/heads/second_set", "ok": "tests/heads/correct", "bug": "grader/assignments/attention_head/variants"}
DISGUISED = 16
TRANSPLANTS = 4
ODD_COPIES = 4  # heads with a mistake the catalogue does not name ("# diagnosis: none")
# Fingerprints of its own (outside the lesson's code) a head needs for its copies to be
# told from independent heads making the same change to the lesson: about three lines.
OWN_ENOUGH = 10


def quality_set() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Heads by id, and the pairs that are derived (one copied from the other)."""
    files = {
        f"{prefix}_{head.stem}": head.read_text(encoding="utf-8")
        for prefix, folder in HEAD_SETS.items()
        for head in sorted((ROOT / folder).glob("*.py"))
    }
    # Every third head, so that originals come from all three sets.
    chosen = sorted(files)[::3]
    derived = set()
    for original, (name, disguise) in zip(chosen[:DISGUISED], itertools.cycle(DISGUISES.items())):
        copy = f"zz_{original}_{name}"
        files[copy] = disguise(files[original])
        derived.add(tuple(sorted((original, copy))))
    others = [head for head in sorted(files) if head not in chosen and not head.startswith("zz_")]
    for donor, own in zip(chosen[DISGUISED : DISGUISED + TRANSPLANTS], others[1::7]):
        # The copier's own work stands in for its head: only the copy is submitted.
        copy = f"zz_{own}_with_{donor}_attention"
        files[copy] = transplanted(files[donor], files.pop(own))
        derived.add(tuple(sorted((donor, copy))))
    odd = [head for head in sorted(files) if "# diagnosis: none" in files[head] and head not in chosen]
    for original, (name, disguise) in zip(odd[:ODD_COPIES], itertools.cycle(reversed(DISGUISES.items()))):
        copy = f"zz_{original}_{name}"
        files[copy] = disguise(files[original])
        derived.add(tuple(sorted((original, copy))))
    return files, derived


def own_code(files: dict[str, str]) -> dict[str, int]:
    """How many fingerprints of each head are not the lesson's (nor the template's)."""
    given = boilerplate(given_code(assignments.get()))
    return {student: len(set(fingerprints(code).lines) - given) for student, code in files.items()}


def tally(label: str, pairs: list[dict], derived: set[tuple[str, str]], own: dict[str, int]) -> None:
    flagged = {(pair["a"], pair["b"]): pair.get("signal", "code") for pair in pairs}
    scores = {(pair["a"], pair["b"]): f"code {pair['code']['score']:.2f}, behaviour {pair['behaviour']['score']:.2f}" for pair in pairs}
    named = {(pair["a"], pair["b"]): pair.get("behaviour", {}).get("mistakes", []) for pair in pairs}
    independent = len(own) * (len(own) - 1) // 2 - len(derived)
    print(f"{label}:")
    # The original of a pair is the head copied: the one whose id does not start "zz_".
    original = {pair: next(side for side in pair if not side.startswith("zz_")) for pair in derived}
    for enough in (True, False):
        chosen = {pair for pair in derived if (own[original[pair]] >= OWN_ENOUGH) == enough}
        kind = f"at least {OWN_ENOUGH}" if enough else f"fewer than {OWN_ENOUGH}"
        print(f"  derived pairs found, original with {kind} fingerprints of its own: "
              f"{len(flagged.keys() & chosen)} of {len(chosen)}")
        for pair in sorted(chosen):
            print(f"    {'found by ' + flagged[pair] if pair in flagged else 'missed':<18} "
                  f"{pair[0]} ~ {pair[1]} (original's own: {own[original[pair]]}{'; ' + scores[pair] if pair in scores else ''})")
    wrong = sorted(flagged.keys() - derived)
    sharing = sum(1 for pair in wrong if named[pair])
    print(f"  independent pairs flagged: {len(wrong)} of {independent} ({sharing} sharing a named mistake)")
    for pair in wrong:
        shared = f" (both make {', '.join(named[pair])})" if named[pair] else ""
        print(f"    flagged by {flagged[pair]:<8} {pair[0]} ~ {pair[1]}{shared} ({scores[pair]})")


def graded_similarity(files: dict[str, str]) -> dict:
    """``grader grade --similarity``'s similarity.json for ``files``, written to a folder."""
    with tempfile.TemporaryDirectory(prefix="grader-similarity-") as scratch:
        folder = Path(scratch) / "submissions"
        folder.mkdir()
        for student, code in files.items():
            (folder / f"{student}.py").write_text(code, encoding="utf-8")
        out = Path(scratch) / "out"
        environment = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / "cache")}
        subprocess.run(
            [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--jobs", "2", "--similarity"],
            cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, check=False,
        )
        return json.loads((out / "similarity.json").read_text())


def dolos(folder: Path, threshold: float) -> None:
    samples = {path.stem: path.read_text(encoding="utf-8") for path in sorted(folder.glob("UPGMA_*.py"))}
    from_a = {name for name in samples if name.startswith("UPGMA_A")}
    with_b = {"UPGMA_B", "UPGMA_A_B_combined", "UPGMA_A_functioncopied"}
    derived = {pair for pair in itertools.combinations(sorted(samples), 2) if set(pair) <= from_a or set(pair) <= with_b}
    background = quality_set()[0]
    for label, files in (("the eight alone", samples), (f"inside the {len(background)} heads of the quality set", {**background, **samples})):
        found = analyse([(student, code, None) for student, code in files.items()], threshold)["pairs"]
        # Pairs of two heads of the quality set are measured above, not here.
        listed = {(pair["a"], pair["b"]) for pair in found if pair["a"] in samples or pair["b"] in samples}
        others = len(files) - len(samples)
        measured = len(files) * (len(files) - 1) // 2 - others * (others - 1) // 2
        print(f"Dolos's Python benchmark, {label}: derived pairs found {len(listed & derived)} of {len(derived)}, "
              f"other pairs with a Dolos file flagged {len(listed - derived)} of {measured - len(derived)}")
        for pair in sorted(derived - listed):
            print(f"    missed {pair[0]} ~ {pair[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code-only", action="store_true", help="skip grading: the code signal alone")
    parser.add_argument("--dolos", type=Path, help="Dolos's samples/python/benchmark_files, to measure on them too")
    options = parser.parse_args()
    files, derived = quality_set()
    print(f"{len(files)} heads ({len(derived)} derived pairs), threshold {DEFAULT_THRESHOLD}\n")
    own = own_code(files)
    tally("code alone", analyse([(student, code, None) for student, code in files.items()])["pairs"], derived, own)
    if not options.code_only:
        tally("graded, code and behaviour", graded_similarity(files)["pairs"], derived, own)
    if options.dolos:
        print()
        dolos(options.dolos, DEFAULT_THRESHOLD)
    many = [(f"s{number:04d}", code) for number, code in zip(range(2000), itertools.cycle(files.values()))]
    started = time.perf_counter()
    result = analyse([(student, code, None) for student, code in many])
    print(f"\n2,000 files ({len(files)} heads repeated, so every repeat is a copy): "
          f"{time.perf_counter() - started:.1f} s, {len(result['pairs'])} pairs listed")


if __name__ == "__main__":
    main()
