"""Time one batch with this checkout and with another (an earlier commit), in turn, in one run.

    git worktree add ../base COMMIT && python -m venv ../base/.venv && ../base/.venv/bin/pip install -e ../base
    python benchmarks/against.py --base ../base                          # tests/hostile, 3 rounds
    python benchmarks/against.py --base ../base --folder tests/heads/wild --rounds 5

Each round grades FOLDER with ``grader grade FOLDER --out TMP --jobs 2 --regrade``, first
with this checkout's grader, then with the base's (``BASE/.venv/bin/grader``), and the
ratio is taken round by round: machines here are shared and noisy, and a pair run back to
back sees the same machine. One untimed round of each comes first, so both have the
traces of their failing checks (each grader version keeps its own). Prints each round's
seconds, the median of each, and the median and spread of the ratios (this / base).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def graded(grader: Path, folder: Path, jobs: int) -> float:
    """Seconds ``grader`` takes to grade ``folder`` from scratch (every report regraded)."""
    with tempfile.TemporaryDirectory() as out:
        started = time.monotonic()
        subprocess.run(
            [str(grader), "grade", str(folder), "--out", out, "--jobs", str(jobs), "--regrade"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, required=True, help="another checkout, with its own .venv")
    parser.add_argument("--folder", type=Path, default=ROOT / "tests" / "hostile")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    mine, base = Path(sys.executable).parent / "grader", arguments.base / ".venv" / "bin" / "grader"
    for grader in (mine, base):  # untimed: each version records its traces
        graded(grader, arguments.folder, arguments.jobs)
    times: dict[str, list[float]] = {"this": [], "base": []}
    for round_ in range(arguments.rounds):
        times["this"].append(graded(mine, arguments.folder, arguments.jobs))
        times["base"].append(graded(base, arguments.folder, arguments.jobs))
        print(f"round {round_ + 1}: this {times['this'][-1]:.1f} s, base {times['base'][-1]:.1f} s", flush=True)
    ratios = [a / b for a, b in zip(times["this"], times["base"])]
    print(f"median: this {statistics.median(times['this']):.1f} s, base {statistics.median(times['base']):.1f} s")
    print(f"ratio this/base: median {statistics.median(ratios):.3f}, spread {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main()
