"""How much one student's spinning processes slow the others' grading, in one run.

    python benchmarks/cpu_share.py                  # 8 honest heads, 30 spinners, 3 rounds
    python benchmarks/cpu_share.py --honest 12 --rounds 5

Each round grades, with ``grader grade --jobs 2 --regrade``, a folder of honest heads (the
lesson's, under several names) alone, then the same folder with one head more whose import
starts up to 30 processes (as many as its sandbox's
process bound allows), each in a session of its own (so each is
a scheduling autogroup of its own, where the kernel groups by session), that spin until its sandbox is cleared (they stop only when the next
submission of that job starts), and whose softmax is slow, so that they spin while the
other job grades every honest head. The honest heads' own grading times (each report's
``duration_s``) are compared round by round, as a ratio (with the spinner / alone): a
sandbox held to one CPU (grader.sandbox.bounds) keeps the spinners on their own job's
CPU. Prints each round, then the median ratio and its spread.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference" / "attention.py"
SPINNER = """\
import os
for _ in range(30):  # as many as the sandbox's process bound lets it start
    try:
        if os.fork() == 0:
            os.setsid()  # a session, and so a scheduling autogroup, of its own
            while True:
                pass
    except OSError:
        break
""" + REFERENCE.read_text(encoding="utf-8") + """
import time
_lesson_softmax = softmax


def softmax(x, axis=-1):  # slow, so that its grading (and its spinners) outlast the batch
    time.sleep(0.05)
    return _lesson_softmax(x, axis)
"""


def honest_seconds(folder: Path, spinner: bool) -> float:
    """The summed grading time of the honest heads in ``folder`` (with the spinner beside them or not)."""
    if spinner:
        (folder / "aaa_spinner.py").write_text(SPINNER, encoding="utf-8")  # graded first, by one job
    else:
        (folder / "aaa_spinner.py").unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            ["grader", "grade", str(folder), "--out", out, "--jobs", "2", "--regrade"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        summary = json.loads((Path(out) / "summary.json").read_text())
        reports = [json.loads((Path(out) / entry["report"]).read_text()) for entry in summary["submissions"]]
    return sum(report["duration_s"] for report in reports if report["student"] != "aaa_spinner")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--honest", type=int, default=8, help="honest heads in the folder")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        for number in range(options.honest):
            shutil.copyfile(REFERENCE, folder / f"honest_{number:02d}.py")
        honest_seconds(folder, spinner=False)  # untimed: the recorded examples and traces are made
        ratios = []
        for round_number in range(1, options.rounds + 1):
            alone = honest_seconds(folder, spinner=False)
            beside = honest_seconds(folder, spinner=True)
            ratios.append(beside / alone)
            print(f"round {round_number}: honest heads {alone:.2f} s alone, {beside:.2f} s beside the spinner "
                  f"(ratio {ratios[-1]:.2f})")
    print(f"median ratio {statistics.median(ratios):.2f} (from {min(ratios):.2f} to {max(ratios):.2f})")


if __name__ == "__main__":
    main()
