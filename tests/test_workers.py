"""Starting workers: the zygote that forks them under bubblewrap, and its safety rails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REFERENCE

from grader import assignments, sources
from grader.engine.proxy import Submission
from grader.sandbox import Limits, workers

ZYGOTE_SCRIPT = Path(workers.__file__).with_name("zygote.py")
BUBBLEWRAP = Limits(isolation="bubblewrap")
FUNCTIONS = workers.Interface("attention", assignments.get().function_names)


def test_the_zygote_refuses_to_run_outside_a_sandbox_of_its_own():
    """Outside its own PID namespace, kill(-1) would reach every process of the user."""
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        folder = ZYGOTE_SCRIPT.parent
        run = subprocess.run(
            [sys.executable, str(ZYGOTE_SCRIPT)], cwd=folder, capture_output=True, text=True, timeout=30,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode != 0 and "runs only as the init" in run.stderr
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def _ready(worker: workers.ForkedWorker) -> dict:
    header, _ = worker.reader.read_frame(deadline=None)
    return header


@pytest.mark.bubblewrap  # the zygote runs under bubblewrap
def test_a_zygote_that_died_is_replaced_at_the_next_spawn():
    zygote = workers.Zygote()
    try:
        worker = zygote.spawn(REFERENCE.read_bytes(), BUBBLEWRAP, FUNCTIONS)
        assert _ready(worker)["status"] == "ready"
        worker.kill()
        os.killpg(zygote._process.pid, signal.SIGKILL)  # as a crash of the whole sandbox would
        # The sandbox's pid 1 ends a moment after bubblewrap: a spawn sent before then would
        # still be answered. Its end of the control socket closes when it is gone.
        zygote._control.settimeout(10)
        assert zygote._control.recv(1) == b""
        worker = zygote.spawn(REFERENCE.read_bytes(), BUBBLEWRAP, FUNCTIONS)
        assert zygote.generation == 2 and _ready(worker)["status"] == "ready"
        worker.kill()
    finally:
        zygote.close()
    assert not zygote.folder.exists()


@pytest.mark.bubblewrap  # the zygote runs under bubblewrap
def test_a_forked_worker_reports_how_it_ended(tmp_path):
    head = tmp_path / "attention.py"
    head.write_text(REFERENCE.read_text() + "\n\ndef softmax(x, axis=-1):\n    import os\n    os._exit(3)\n")
    submission = Submission(sources.read(head), assignments.get(), BUBBLEWRAP)
    try:
        with pytest.raises(Exception, match="it exited with status 3"):
            submission.softmax(np.zeros(2))
        submission.begin_check()  # the next check gets a fresh worker
        assert submission.causal_mask(1).tolist() == [[True]]
    finally:
        submission.close()
