"""Time the grader against a naive per-submission pytest loop, in one run.

    python benchmarks/bench.py --submissions 40

Builds a folder of N submissions (the reference head and the known heads from tests/,
copied under distinct ids), then times, one after the other on this machine:

- N bare starts of ``python -c "import numpy, pytest, hypothesis"``;
- the naive loop: one fresh pytest process per submission over the same checks, each
  running Hypothesis live (no recorded examples);
- ``grader grade --jobs 1`` and ``--jobs 2``;
- ``grader check`` on the reference head.

It prints each time, its ratio to the N bare starts (or, for ``check``, to one bare
start), and the peak resident memory of the largest process each step ran. Machines
here are shared and noisy: quote ratios from one run, not absolute seconds.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.resources import DEFAULT_RUBRIC, project_file  # noqa: E402
from grader.rubric import load_rubric  # noqa: E402
from grader.runner import PYTEST_INI, _environment, pytest_arguments  # noqa: E402
from grader.sandbox import Limits, resolve_isolation  # noqa: E402


def build_folder(folder: Path, count: int) -> list[Path]:
    heads = [ROOT / "reference" / "attention.py"]
    heads += sorted((ROOT / "tests" / "heads").glob("*/*.py"))
    paths = []
    for number, head in zip(range(count), itertools.cycle(heads)):
        path = folder / f"s{number:03d}_{head.stem}.py"
        shutil.copyfile(head, path)
        paths.append(path)
    return paths


def timed(label: str, run) -> float:
    started = time.perf_counter()
    run()
    elapsed = time.perf_counter() - started
    print(f"  {label:<40} {elapsed:8.2f} s", flush=True)
    return elapsed


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=40, help="how many submissions to grade (default 40)")
    options = parser.parse_args()
    count = options.submissions
    isolation = resolve_isolation("auto")
    rubric = load_rubric(project_file(DEFAULT_RUBRIC))
    limits = Limits(isolation=isolation)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as scratch:
        scratch = Path(scratch)
        submissions = scratch / "submissions"
        submissions.mkdir()
        paths = build_folder(submissions, count)
        print(f"{count} submissions, sandbox {isolation}, python {sys.version.split()[0]}\n")

        def bare() -> None:
            for _ in paths:
                subprocess.run([python, "-c", "import numpy, pytest, hypothesis"], check=True)

        def naive() -> None:
            workdir = scratch / "naive"
            workdir.mkdir()
            (workdir / "pytest.ini").write_text(PYTEST_INI)
            for path in paths:
                subprocess.run(
                    [python, "-m", "pytest", *pytest_arguments(path, rubric, limits, workdir, replay=False)],
                    cwd=workdir, env=_environment(workdir), stdout=subprocess.DEVNULL, check=False,
                )

        def grade(jobs: int):
            def run() -> None:
                out = scratch / f"out-{jobs}"
                subprocess.run(
                    [python, "-m", "grader", "grade", str(submissions), "--out", str(out), "--jobs", str(jobs),
                     "--sandbox", isolation, "--regrade"],
                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                )
            return run

        def check_one() -> None:
            subprocess.run(
                [python, "-m", "grader", "check", str(ROOT / "reference" / "attention.py"), "--sandbox", isolation],
                cwd=ROOT, stdout=subprocess.DEVNULL, check=True,
            )

        times = {}
        memory = {}
        for label, run in [
            (f"{count} bare starts", bare),
            ("naive loop (pytest per submission)", naive),
            ("grader grade --jobs 1", grade(1)),
            ("grader grade --jobs 2", grade(2)),
            ("grader check (reference)", check_one),
        ]:
            times[label] = timed(label, run)
            memory[label] = peak_rss_mib()
        baseline = times[f"{count} bare starts"]
        print("\nratios (lower is faster):")
        for label, seconds in times.items():
            reference = baseline / count if label.startswith("grader check") else baseline
            unit = "one bare start" if label.startswith("grader check") else f"{count} bare starts"
            print(f"  {label:<40} {seconds / reference:8.2f} x {unit}")
        print("\npeak RSS of the largest process so far (MiB):")
        for label, mib in memory.items():
            print(f"  {label:<40} {mib:8.1f}")


if __name__ == "__main__":
    main()
