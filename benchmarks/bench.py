"""Time the grader against a naive per-submission pytest loop, in one run.

    python benchmarks/bench.py --submissions 40
    python benchmarks/bench.py --submissions 400 --grade-only   # peak memory at scale

Builds a folder of N submissions (the reference head and the known heads from tests/,
copied under distinct ids), records the checks' examples once in a private cache (as
any install does on its first run, untimed), then times, one after the other:

- N bare starts of ``python -c "import numpy, pytest, hypothesis"``;
- the naive loop: one fresh pytest process per submission over the same checks, each
  running Hypothesis live (no recorded examples);
- ``grader grade --jobs 1`` and ``--jobs 2`` with no traces of failing checks (each
  batch starts from an empty trace folder, as the first batch of a course does);
- ``grader grade --jobs 2`` again, with the traces the runs before it kept (as any later
  batch with the same mistakes, or a regrade);
- ``grader check`` on the reference head.

It prints each time, its ratio to the N bare starts (or, for ``check``, to one bare
start), the peak resident memory of the largest process each grader step ran, and
whether every grade step gave the same grades (reports without their duration, and the
gradebook). Machines here are shared and noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import assignments  # noqa: E402
from grader.assignments.rubric import load_rubric  # noqa: E402
from grader.engine.runner import PYTEST_INI, _environment, pytest_arguments  # noqa: E402
from grader.resources import project_file  # noqa: E402
from grader.sandbox import Limits, resolve_isolation  # noqa: E402

REFERENCE = ROOT / "reference" / "attention.py"


def build_folder(folder: Path, count: int) -> list[Path]:
    heads = [REFERENCE]
    heads += sorted((ROOT / "tests" / "heads").glob("*/*.py"))
    paths = []
    for number, head in zip(range(count), itertools.cycle(heads)):
        path = folder / f"s{number:03d}_{head.stem}.py"
        shutil.copyfile(head, path)
        paths.append(path)
    return paths


# Runs a command and prints its wall time and the peak RSS of the largest process in its tree.
MEASURE = (
    "import resource, subprocess, sys, time; started = time.perf_counter(); "
    "code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024); "
    "sys.exit(code)"
)


def measured(command: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Seconds and peak MiB of ``command`` (and everything it started)."""
    output = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], cwd=ROOT, env=environment, capture_output=True, text=True, check=True
    )
    seconds, mib = output.stdout.split()
    return float(seconds), float(mib)


def graded(out: Path) -> dict[str, str]:
    """Each report without its duration (the one field that measures the machine), and the gradebook."""
    found = {"grades.csv": (out / "grades.csv").read_text()}
    for path in out.glob("*.json"):
        if path.name != "summary.json":
            report = json.loads(path.read_text())
            report.pop("duration_s")
            found[path.name] = json.dumps(report, sort_keys=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=40, help="how many submissions to grade (default 40)")
    parser.add_argument(
        "--grade-only", action="store_true", help="time only the bare starts and grader grade --jobs 2 (for large N)"
    )
    options = parser.parse_args()
    count = options.submissions
    isolation = resolve_isolation("auto")
    rubric = load_rubric(project_file(assignments.get().rubric))
    limits = Limits(isolation=isolation)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as scratch:
        scratch = Path(scratch)
        submissions = scratch / "submissions"
        submissions.mkdir()
        build_folder(submissions, count)
        paths = sorted(submissions.glob("*.py"))
        # A private cache: the examples are recorded once (as on any machine's first run),
        # and traces of failing checks exist only where a step says so.
        cache = scratch / "cache"
        environment = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        grader = [python, "-m", "grader"]
        subprocess.run(grader + ["check", str(REFERENCE), "--sandbox", isolation], cwd=ROOT, env=environment,
                       stdout=subprocess.DEVNULL, check=True)
        traces = next(cache.glob("attention-grader/examples/*")) / "traces"
        print(f"{count} submissions, sandbox {isolation}, python {sys.version.split()[0]}\n")

        def bare() -> tuple[float, float]:
            started = time.perf_counter()
            for _ in paths:
                subprocess.run([python, "-c", "import numpy, pytest, hypothesis"], check=True)
            return time.perf_counter() - started, 0.0

        def naive() -> tuple[float, float]:
            workdir = scratch / "naive"
            workdir.mkdir()
            (workdir / "pytest.ini").write_text(PYTEST_INI)
            started = time.perf_counter()
            for path in paths:
                subprocess.run(
                    [python, "-m", "pytest", *pytest_arguments([path], rubric, limits, workdir, replay=False)],
                    cwd=workdir, env=_environment(workdir), stdout=subprocess.DEVNULL, check=False,
                )
            return time.perf_counter() - started, 0.0

        def grade(jobs: int, warm: bool):
            def run() -> tuple[float, float]:
                if not warm:
                    shutil.rmtree(traces, ignore_errors=True)
                out = scratch / f"out-{jobs}-{'warm' if warm else 'cold'}"
                command = grader + ["grade", str(submissions), "--out", str(out), "--jobs", str(jobs),
                                    "--sandbox", isolation, "--regrade"]
                return measured(command, environment)
            return run

        def check_one() -> tuple[float, float]:
            return measured(grader + ["check", str(REFERENCE), "--sandbox", isolation], environment)

        steps = [(f"{count} bare starts", bare)]
        if not options.grade_only:
            steps += [
                ("naive loop (pytest per submission)", naive),
                ("grader grade --jobs 1, no traces", grade(1, warm=False)),
                ("grader grade --jobs 2, no traces", grade(2, warm=False)),
            ]
        steps += [("grader grade --jobs 2, traces kept", grade(2, warm=True))]
        if not options.grade_only:
            steps += [("grader check (reference)", check_one)]
        results = {}
        for label, run in steps:
            results[label] = run()
            print(f"  {label:<40} {results[label][0]:8.2f} s", flush=True)
        baseline = results[f"{count} bare starts"][0]
        print("\nratios (lower is faster):")
        for label, (seconds, _) in results.items():
            one = label.startswith("grader check")
            unit = "one bare start" if one else f"{count} bare starts"
            print(f"  {label:<40} {seconds / (baseline / count if one else baseline):8.2f} x {unit}")
        print("\npeak RSS of the largest process (MiB):")
        for label, (_, mib) in results.items():
            if mib:
                print(f"  {label:<40} {mib:8.1f}")
        outs = sorted(scratch.glob("out-*"))
        same = all(graded(out) == graded(outs[0]) for out in outs)
        print(f"\ngrades identical across the grade steps ({len(outs)}): {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
