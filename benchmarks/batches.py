"""Time whole batches where they are hard: on Dask, at scale, and with slow heads, in one run.

    python benchmarks/batches.py                      # every step below
    python benchmarks/batches.py --steps cluster,slow --submissions 40

Steps (each prints its times and its ratios, measured in this one run):

- ``cluster``: the same folder of N submissions (as benchmarks/bench.py builds it)
  graded with ``--jobs 1``, ``--jobs 2``, and on a Dask cluster of 1 and then 2
  ``dask worker --nthreads 1`` processes (a ``dask scheduler`` and its workers started
  here on 127.0.0.1, before the clock starts), each against ``--jobs 1``; and whether
  every step gave the same grades.
- ``scale``: ``--jobs 2`` on folders of 200 and 2,000 submissions: seconds per
  submission, the ratio of the two, and the peak memory of the command itself and of
  the largest process it started (memory must stay flat as the folder grows).
- ``similarity``: what ``--similarity`` adds to a batch of the scale step's largest
  folder (graded first if the scale step did not run): ``grader grade`` with every
  report current (nothing regraded), without and then with ``--similarity``. The folder
  repeats some 90 heads, so every repeat is a copy: the worst case for the analysis,
  which lists thousands of pairs.
- ``slow``: 20 submissions (16 of tests/heads/second_set, two that loop forever inside
  ``attention``, two that hang at import) with ``--jobs 2``, the slow four first in the
  folder and then spread through it: the batch's wall time against the total of its
  submissions' grading times over the jobs (1.0 would be a perfect split), and against
  that plus half the longest one (the most a schedule that cannot know which
  submissions are slow before grading them can promise on 2 jobs).

Every step grades with the traces of failing checks an earlier batch kept (one untimed
batch first), so the steps compare executors, not Hypothesis's first runs. Machines
here are shared and noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import ROOT, build_folder, graded, measured

sys.path.insert(0, str(ROOT))
from grader.sandbox import resolve_isolation  # noqa: E402

DASK = Path(sys.executable).parent / "dask"
SECOND_SET = ROOT / "tests" / "heads" / "second_set"
HOSTILE = ROOT / "tests" / "hostile"
SLOW_HEADS = {
    "loops_a": HOSTILE / "loops_forever_in_attention.py",
    "loops_b": HOSTILE / "loops_forever_in_attention.py",
    "hangs_a": HOSTILE / "sleeps_forever_at_import.py",
    "hangs_b": HOSTILE / "loops_forever_at_import.py",
}
# The command run in-process, to read its own peak memory beside its children's.
MEASURE_SELF = (
    "import resource, sys, time; from grader.cli import cli; started = time.perf_counter()\n"
    "try: cli(sys.argv[1:], prog_name='grader', standalone_mode=False)\n"
    "finally: print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,"
    " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, file=sys.stderr)"
)


class Scheduler:
    """A ``dask scheduler`` and its workers on 127.0.0.1, in sessions of their own, logs in files."""

    def __init__(self, folder: Path, environment: dict[str, str]) -> None:
        self.folder = folder
        self.environment = environment
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen] = []
        self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(self.file))
        while not self.file.exists():
            time.sleep(0.1)

    def _start(self, *args: str) -> None:
        with open(self.folder / f"dask-{len(self.processes)}.log", "wb") as log:
            self.processes.append(subprocess.Popen(
                [str(DASK), *args], stdout=log, stderr=log, env=self.environment, cwd=self.folder,
                start_new_session=True,
            ))

    def add_worker(self, count: int) -> None:
        """Start one more worker and wait until ``count`` are connected."""
        self._start("worker", "--scheduler-file", str(self.file), "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1")
        from distributed import Client

        with Client(scheduler_file=str(self.file), timeout=30) as client:
            client.wait_for_workers(count, timeout=60)

    def stop(self) -> None:
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for process in self.processes:
            process.wait()


def grade_command(folder: Path, out: Path, isolation: str, *where: str) -> list[str]:
    return [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--sandbox", isolation, "--regrade", *where]


def cluster_step(scratch: Path, count: int, isolation: str, environment: dict[str, str]) -> None:
    folder = scratch / "cluster-submissions"
    folder.mkdir()
    build_folder(folder, count)
    times = {}
    for jobs in (1, 2):
        times[f"--jobs {jobs}"] = measured(grade_command(folder, scratch / f"out-jobs{jobs}", isolation, "--jobs", str(jobs)), environment)[0]
    dask = Scheduler(scratch, environment)
    try:
        for workers in (1, 2):
            dask.add_worker(workers)
            out = scratch / f"out-dask{workers}"
            command = grade_command(folder, out, isolation, "--scheduler-file", str(dask.file))
            times[f"Dask, {workers} worker{'s' if workers > 1 else ''}"] = measured(command, environment)[0]
    finally:
        dask.stop()
    print(f"cluster: {count} submissions, traces kept")
    for label, seconds in times.items():
        print(f"  {label:<24} {seconds:8.2f} s {seconds / times['--jobs 1']:6.2f} x --jobs 1")
    outs = sorted(scratch.glob("out-jobs*")) + sorted(scratch.glob("out-dask*"))
    same = all(graded(out) == graded(outs[0]) for out in outs)
    print(f"  grades identical across the four: {'yes' if same else 'NO'}\n")


def scale_step(scratch: Path, sizes: list[int], isolation: str, environment: dict[str, str]) -> None:
    print("scale: --jobs 2, traces kept")
    per_submission = {}
    for size in sizes:
        folder = scratch / f"scale-{size}"
        folder.mkdir()
        build_folder(folder, size)
        command = ["grade", str(folder), "--out", str(scratch / f"out-scale-{size}"), "--jobs", "2", "--sandbox", isolation, "--regrade"]
        run = subprocess.run([sys.executable, "-c", MEASURE_SELF, *command], cwd=ROOT, env=environment,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
        seconds, own, largest = (float(value) for value in run.stderr.split()[-3:])
        per_submission[size] = seconds / size
        print(f"  {size:>5} submissions {seconds:8.2f} s  {1000 * seconds / size:6.1f} ms each  "
              f"command {own:6.1f} MiB  largest child {largest:6.1f} MiB")
    if len(sizes) > 1:
        print(f"  time per submission, {sizes[-1]} against {sizes[0]}: {per_submission[sizes[-1]] / per_submission[sizes[0]]:.3f}\n")


def similarity_step(scratch: Path, size: int, isolation: str, environment: dict[str, str]) -> None:
    folder, out = scratch / f"scale-{size}", scratch / f"out-scale-{size}"
    if not folder.exists():
        folder.mkdir()
        build_folder(folder, size)
        subprocess.run(grade_command(folder, out, isolation, "--jobs", "2"), cwd=ROOT, env=environment,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    kept = [sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), "--sandbox", isolation]
    without = measured(kept, environment)[0]
    with_similarity = measured(kept + ["--similarity"], environment)[0]
    pairs = len(json.loads((out / "similarity.json").read_text())["pairs"])
    print(f"similarity: {size} submissions, every report current")
    print(f"  without --similarity {without:7.2f} s\n  with --similarity    {with_similarity:7.2f} s"
          f" ({with_similarity - without:+.2f} s, {pairs} pairs listed)\n")


def slow_step(scratch: Path, isolation: str, environment: dict[str, str]) -> None:
    heads = sorted(SECOND_SET.glob("*.py"))[:16]
    arrangements = {
        "slow four first": list(SLOW_HEADS) + [head.stem for head in heads],
        "slow four spread": [head.stem for head in heads[:4]] + ["loops_a"] + [head.stem for head in heads[4:8]]
        + ["hangs_a"] + [head.stem for head in heads[8:12]] + ["loops_b"] + [head.stem for head in heads[12:]] + ["hangs_b"],
    }
    sources = {**{head.stem: head for head in heads}, **SLOW_HEADS}
    print("slow: 20 submissions, --jobs 2")
    for label, order in arrangements.items():
        folder = scratch / f"slow-{label.replace(' ', '-')}"
        folder.mkdir()
        for position, name in enumerate(order):
            shutil.copyfile(sources[name], folder / f"s{position:02d}_{name}.py")
        out = scratch / f"out-slow-{label.replace(' ', '-')}"
        seconds = measured(grade_command(folder, out, isolation, "--jobs", "2"), environment)[0]
        durations = [json.loads(path.read_text())["duration_s"] for path in out.glob("s[0-9]*.json")]
        total, longest = sum(durations), max(durations)
        # What any schedule that cannot know durations in advance may take (Graham's bound
        # for list scheduling): the total over the jobs, plus half the longest submission.
        bound = total / 2 + longest / 2
        print(f"  {label:<18} wall {seconds:6.1f} s; grading times {total:6.1f} s in all, longest {longest:5.1f} s: "
              f"wall / (total / 2) = {seconds / (total / 2):.2f}, wall / (total / 2 + longest / 2) = {seconds / bound:.2f}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", default="cluster,scale,similarity,slow", help="which steps, comma-separated (default: all)")
    parser.add_argument("--submissions", type=int, default=40, help="the cluster step's folder size (default 40)")
    parser.add_argument("--sizes", default="200,2000", help="the scale step's folder sizes (default 200,2000)")
    options = parser.parse_args()
    steps = options.steps.split(",")
    isolation = resolve_isolation("auto")
    with tempfile.TemporaryDirectory(prefix="grader-batches-") as scratch:
        scratch = Path(scratch)
        environment = {**os.environ, "XDG_CACHE_HOME": str(scratch / "cache")}
        # One untimed batch records the examples and keeps the traces every step then uses.
        warm = scratch / "warm"
        warm.mkdir()
        build_folder(warm, 40)
        subprocess.run(grade_command(warm, scratch / "out-warm", isolation), cwd=ROOT, env=environment,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        print(f"sandbox {isolation}, python {sys.version.split()[0]}, {os.cpu_count()} cores\n")
        if "cluster" in steps:
            cluster_step(scratch, options.submissions, isolation, environment)
        if "scale" in steps:
            scale_step(scratch, [int(size) for size in options.sizes.split(",")], isolation, environment)
        if "similarity" in steps:
            similarity_step(scratch, int(options.sizes.split(",")[-1]), isolation, environment)
        if "slow" in steps:
            slow_step(scratch, isolation, environment)


if __name__ == "__main__":
    main()
