"""`grader check FILE --watch`: graded again at each save, in one warm check process, until Ctrl-C."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REFERENCE, TESTS, VARIANTS

NO_SCALE = VARIANTS / "missing_scale.py"


def _wait_for(stream_file: Path, text: str, count: int, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = stream_file.read_text(errors="replace")
        if seen.count(text) >= count:
            return seen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} did not appear {count} times in {timeout} s:\n{stream_file.read_text(errors='replace')}")


def test_watch_grades_each_save_and_stops_cleanly_on_ctrl_c(tmp_path):
    submission = tmp_path / "attention.py"
    shutil.copyfile(REFERENCE, submission)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        watching = subprocess.Popen(
            [sys.executable, "-m", "grader", "check", str(submission), "--watch"], cwd=tmp_path, stdout=stdout, stderr=stderr
        )
        try:
            _wait_for(err, "Ctrl-C stops", 1)
            assert "100/100 points" in out.read_text()
            time.sleep(0.05)  # a save within the same clock tick still changes the size here
            shutil.copyfile(NO_SCALE, submission)  # the student saves a wrong version
            seen = _wait_for(out, "checks passed;", 2)  # each report's last line
            assert "FAIL  attention.scaling" in seen.split("checks passed;", 1)[1]
            submission.unlink()  # gone: one line, and watching goes on
            shutil.copyfile(REFERENCE, submission)
            _wait_for(out, "checks passed;", 3)
            assert out.read_text().split("checks passed;")[-2].endswith("29 of 29 ")
            watching.send_signal(signal.SIGINT)
            assert watching.wait(timeout=30) == 0
        finally:
            if watching.poll() is None:
                watching.kill()
                watching.wait()
    assert "stopped watching" in err.read_text()
    assert "Traceback" not in err.read_text()
