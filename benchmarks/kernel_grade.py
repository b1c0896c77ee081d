"""Time `%grade` in a notebook kernel against one bare interpreter start, in one run.

    python benchmarks/kernel_grade.py --rounds 5

Each round starts a new IPython kernel (ipykernel, driven by jupyter_client as Jupyter
drives it), runs `%load_ext grader` and the lesson's code, then times, one after the
other: one bare start of ``python -c "import numpy, pytest, hypothesis"``, the first
`%grade` (which starts the check process and its sandbox) and a second `%grade` (which
finds them warm). Only `%grade`'s cell is timed, from the request to the kernel's reply.
The checks' examples are recorded once before the first round (untimed), as any
install does on its first run. It prints each figure's median and its ratio to the bare
start's median; machines here are shared and noisy: quote ratios from one run.
Needs the test extra (ipykernel, jupyter_client).
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
LESSON = (ROOT / "reference" / "attention.py").read_text(encoding="utf-8")


def _timed_cell(client, code: str) -> float:
    started = time.perf_counter()
    reply = client.execute_interactive(code, timeout=600, output_hook=lambda message: None)
    elapsed = time.perf_counter() - started
    if reply["content"]["status"] != "ok":
        raise SystemExit(f"the cell {code!r} failed: {reply['content']}")
    return elapsed


def _bare_start() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy, pytest, hypothesis"], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    from jupyter_client.manager import KernelManager

    subprocess.run([sys.executable, "-m", "grader", "check", str(ROOT / "reference" / "attention.py")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # records the examples
    times: dict[str, list[float]] = {"bare start": [], "first %grade": [], "second %grade": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as folder:
            manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(folder) / "kernel-ipc"))
            manager.start_kernel(cwd=folder)
            client = manager.client()
            client.start_channels()
            try:
                client.wait_for_ready(timeout=60)
                _timed_cell(client, "%load_ext grader")
                _timed_cell(client, LESSON)
                times["bare start"].append(_bare_start())
                times["first %grade"].append(_timed_cell(client, "%grade"))
                times["second %grade"].append(_timed_cell(client, "%grade"))
            finally:
                client.stop_channels()
                manager.shutdown_kernel(now=True)
    bare = statistics.median(times["bare start"])
    print(f"{rounds} rounds; median seconds, and ratio to one bare start")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:14} {median:6.2f} s  {median / bare:5.2f} x   (min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
