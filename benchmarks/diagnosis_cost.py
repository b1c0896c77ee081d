"""What a diagnosis costs beside the checks, head by head.

    grader grade HEADS --out REPORTS && python benchmarks/diagnosis_cost.py HEADS REPORTS

For each head of HEADS (trusted heads only: they are imported and called in this process,
as the diagnosis would call them in the sandbox), the diagnosis of every function is run
here and timed, and the calls it makes are counted; REPORTS holds what ``grader grade``
wrote, whose ``duration_s`` is the head's checks, pictures and diagnosis in the sandbox.
Each call the sandbox answers costs about a round trip more than here: the count says how
many there were. Prints the heads whose diagnosis took longest, and the largest ratio of a
diagnosis to its head's whole grading.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from grader import diagnoses  # noqa: E402
from grader.assignments.attention_head.mistakes import KNOWN  # noqa: E402


def caller(head, made: list) -> callable:
    def call(probe: diagnoses.Probe) -> diagnoses.Answer:
        made.append(probe)
        args = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in probe.args)
        try:
            with np.errstate(all="ignore"):
                return diagnoses.Answer(getattr(head, probe.function)(*args, **probe.kwargs), args)
        except Exception as error:  # noqa: BLE001 - what the head raises is its answer
            return diagnoses.Answer(diagnoses.RAISED, args, raised=type(error).__name__, text=str(error)[:500])

    return call


def main(heads: Path, reports: Path) -> None:
    rows = []
    for path in sorted(heads.glob("*.py")):
        report = reports / f"{path.stem}.json"
        if not report.exists():
            continue
        spec = importlib.util.spec_from_file_location(f"costed_{path.stem}", path)
        head = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(head)
        made: list = []
        started = time.perf_counter()
        diagnoses.diagnose(caller(head, made), KNOWN)
        spent = time.perf_counter() - started
        graded = json.loads(report.read_text())["duration_s"]
        rows.append((spent, len(made), graded, path.stem))
    for spent, calls, graded, name in sorted(rows, reverse=True)[:10]:
        print(f"{name}: diagnosis {spent:.3f} s, {calls} calls; whole grading {graded:.2f} s")
    worst = max(rows, key=lambda row: row[0] / max(row[2], 1e-9))
    total = sum(row[0] for row in rows)
    print(f"{len(rows)} heads: diagnoses {total:.2f} s in all; largest share of a head's grading "
          f"{worst[0] / worst[2]:.2f} ({worst[3]}), most calls {max(row[1] for row in rows)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
