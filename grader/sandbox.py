"""How a worker process is started: its folder, environment and resource limits.

Every worker gets a fresh temporary folder holding a copy of the submission (as
``attention.py``) and of the worker scripts, an environment built from scratch (nothing
of the grader's is inherited, so no token can be printed), its own session so it can be
killed as a whole, and rlimits it applies to itself before the submission is imported.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

WORKER_SCRIPTS = ("worker.py", "wire.py")
MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Time and resource budgets for one submission; every default is documented here.

    call_timeout: seconds one call may take before it fails as a timeout.
    import_timeout: seconds the worker may take to start and import the submission.
    check_budget: seconds all calls of one check may take together, so shrinking a
        counterexample against a slow head stays bounded.
    submission_budget: seconds the whole check run of one submission may take; a
        backstop, since the budgets above already bound every check.
    memory_mb: address-space cap of the worker (RLIMIT_AS).
    cpu_seconds: CPU-time cap of one worker (RLIMIT_CPU); wall-clock deadlines above
        catch a worker that sleeps instead.
    """

    call_timeout: float = 5.0
    import_timeout: float = 20.0
    check_budget: float = 60.0
    submission_budget: float = 900.0
    memory_mb: int = 1024
    cpu_seconds: int = 300
    file_size_mb: int = 16
    open_files: int = 64

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_mb * MIB,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_size_mb * MIB,
            "RLIMIT_NOFILE": self.open_files,
        }


def _worker_environment(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        # One BLAS thread: graded heads are tiny, and threads would cost memory and time.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


class WorkerProcess:
    """A started worker: its pipes, its process and its folder."""

    def __init__(self, submission: Path, limits: Limits) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="grader-worker-"))
        scripts = self.folder / ".grader"
        scripts.mkdir()
        here = Path(__file__).parent
        for name in WORKER_SCRIPTS:
            shutil.copyfile(here / name, scripts / name)
        copy = self.folder / "attention.py"
        copy.write_bytes(submission.read_bytes())
        self.process = subprocess.Popen(
            [sys.executable, "-s", str(scripts / "worker.py"), str(copy), json.dumps(limits.rlimits())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            env=_worker_environment(str(self.folder)),
            start_new_session=True,
        )
        self.requests = self.process.stdin.fileno()
        self.replies = self.process.stdout.fileno()

    def exit_description(self) -> str:
        """How the worker ended, for a student: an exit code or the signal that killed it."""
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if code < 0:
            try:
                return f"it was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"it was killed by signal {-code}"
        return f"it exited with status {code}"

    def kill(self) -> None:
        """Kill the worker's whole session and remove its folder."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
