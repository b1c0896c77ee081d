"""How well the named mistakes generalise: recall and precision of the diagnoses on a
folder of heads that each declare what they should be told.

    python benchmarks/diagnosis_recall.py HEADS_FOLDER REPORTS_FOLDER

Each head declares ``# diagnosis: id, id`` (or ``none``); REPORTS_FOLDER holds the
reports ``grader grade HEADS_FOLDER --out REPORTS_FOLDER`` wrote. A declared id the
report names is a hit; a named id the head did not declare is a wrong name.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grader.report import NOT_MISTAKES  # noqa: E402

DECLARED = re.compile(r"^# diagnosis:(.*)$", re.MULTILINE)


def declared(path: Path) -> set[str]:
    found = DECLARED.search(path.read_text(errors="replace"))
    ids = {part.strip() for part in found.group(1).split(",")} if found else set()
    return ids - {"none", ""}


def main(heads: Path, reports: Path) -> None:
    hits = wanted = named = wrong = 0
    for head in sorted(heads.glob("*.py")):
        report = json.loads((reports / f"{head.stem}.json").read_text())
        told = {d["id"] for d in report["diagnoses"] if d["id"] not in NOT_MISTAKES}
        expected = declared(head)
        hits += len(told & expected)
        wanted += len(expected)
        named += len(told)
        wrong += len(told - expected)
        if told != expected:
            missed, extra = sorted(expected - told), sorted(told - expected)
            print(f"{head.stem}: missed {missed or '-'}, wrongly named {extra or '-'}")
    print(f"recall {hits}/{wanted}; wrong names {wrong} of {named} named")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
