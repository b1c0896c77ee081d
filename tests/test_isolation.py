"""What a hostile submission can reach from the worker, under each isolation.

The ``bubblewrap`` tests are skipped where it cannot start, and must run in CI (see
conftest).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import NEEDS_ROOT_AND_SYSTEM_PYTHON, REFERENCE

from grader import assignments, sources
from grader.checking.outcomes import CallRaised
from grader.engine.proxy import Submission
from grader.sandbox import Limits

LESSON_HEAD = REFERENCE.read_text()


def submission_with(tmp_path: Path, body: str, isolation: str) -> Submission:
    """The lesson's head plus ``probe()`` (reached as ``softmax(x, axis=...)``)."""
    path = tmp_path / "attention.py"
    path.write_text(LESSON_HEAD + "\n\n" + body + "\n\n_lesson_softmax = softmax\n\n"
                    "def softmax(x, axis=-1):\n    return probe() if axis == 99 else _lesson_softmax(x, axis)\n")
    submission = Submission(sources.read(path), assignments.get(), Limits(isolation=isolation, call_timeout=10.0))
    submission.begin_check()
    return submission


def probe(submission: Submission) -> float:
    try:
        return float(submission.softmax(np.zeros(1), axis=99))
    finally:
        submission.close()


@pytest.mark.parametrize("isolation", ["process", pytest.param("bubblewrap", marks=pytest.mark.bubblewrap)])
def test_the_graders_environment_never_reaches_the_worker(tmp_path, monkeypatch, isolation):
    monkeypatch.setenv("GRADER_TEST_TOKEN", "s3cret")
    body = "import os\ndef probe():\n    return float('s3cret' in repr(os.environ))"
    assert probe(submission_with(tmp_path, body, isolation)) == 0.0


@pytest.mark.bubblewrap
def test_bubblewrap_hides_the_reference_and_the_grader(tmp_path):
    body = f"""
import os
def probe():
    seen = [os.path.exists({str(REFERENCE)!r}), os.path.exists({str(Path(__file__))!r})]
    try:
        import grader  # noqa: F401
        seen.append(True)
    except ImportError:
        seen.append(False)
    return float(any(seen))
"""
    assert probe(submission_with(tmp_path, body, "bubblewrap")) == 0.0


@pytest.mark.bubblewrap
def test_bubblewrap_runs_as_nobody_and_cannot_write_outside_tmp(tmp_path):
    victim = tmp_path / "other_student.py"
    victim.write_text("untouched")
    body = f"""
import os
def probe():
    for target in ({str(victim)!r}, "attention.py", "/submission/attention.py"):
        try:
            with open(target, "w") as handle:
                handle.write("overwritten")
            return -1.0
        except OSError:
            pass
    return float(os.getuid())
"""
    assert probe(submission_with(tmp_path, body, "bubblewrap")) == 65534.0
    assert victim.read_text() == "untouched"


@pytest.mark.bubblewrap
def test_bubblewrap_has_no_network(tmp_path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        body = f"""
import os
import socket
def probe():
    try:
        socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=2).close()
        return 1.0
    except OSError:
        return 0.0
"""
        assert probe(submission_with(tmp_path, body, "bubblewrap")) == 0.0


def _processes_with(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.bubblewrap
def test_bubblewrap_kills_every_process_the_submission_started(tmp_path):
    marker = "987.654321"
    body = f"""
import subprocess, sys
def probe():  # no program but this Python is in the sandbox's view
    subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep({marker})"], start_new_session=True)
    return 0.0
"""
    probe(submission_with(tmp_path, body, "bubblewrap"))
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []


@NEEDS_ROOT_AND_SYSTEM_PYTHON
def test_a_plain_worker_started_by_root_runs_as_nobody_and_cannot_forge_results(tmp_path, python_nobody_can_run):
    _run_as_root_in_a_plain_worker(tmp_path, python_nobody_can_run)


def _run_as_root_in_a_plain_worker(tmp_path: Path, python: Path) -> None:
    results = tmp_path / "results"
    results.mkdir(mode=0o755)  # as /autograder/results: root's, readable by all
    forged = results / "results.json"
    body = f"""
import os
def probe():
    try:
        open({str(forged)!r}, "w").write('{{"score": 100}}')
    except OSError:
        pass
    return float(os.getuid())
"""
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "from test_isolation import submission_with, probe;"
        "from grader.sandbox import unprivileged_python_works; assert unprivileged_python_works();"
        "print(probe(submission_with(Path(sys.argv[2]), sys.argv[3], 'process')))"
    )
    folder = tmp_path / "submission"
    folder.mkdir()
    run = subprocess.run(
        [str(python), "-c", script, str(Path(__file__).parent), str(folder), body],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert float(run.stdout.strip().splitlines()[-1]) == 65534.0
    assert not forged.exists()


def _paths_raised(tmp_path: Path, walk: str) -> list[str]:
    """The paths a ``walk`` probe (run in bubblewrap) raises, one per line of its message."""
    submission = submission_with(tmp_path, walk, "bubblewrap")
    try:
        submission.softmax(np.zeros(1), axis=99)
    except CallRaised as error:
        return [line for line in error.text.splitlines() if line.startswith("/")]
    finally:
        submission.close()
    raise AssertionError("the walk raised nothing")


PACKAGE_WALK = r"""
import os, sys, sysconfig
def probe():
    # Every folder a submission can read that holds Python packages: a *-packages folder, a
    # package (an __init__.py), a distribution's metadata, or modules beside a .pth file.
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    found = []
    for folder, subfolders, files in os.walk("/", onerror=lambda error: None):
        subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in ("/proc", "/sys", "/dev")]
        real = os.path.realpath(folder)
        if real == stdlib or real.startswith(stdlib + os.sep):
            continue
        if (folder.endswith(("-packages", ".dist-info", ".egg-info")) or "__init__.py" in files
                or any(name.endswith(".pth") for name in files)):
            found.append(folder)
            subfolders[:] = []
    raise RuntimeError("\n".join(found))
"""


@pytest.mark.bubblewrap
def test_bubblewrap_shows_no_package_but_the_standard_library_and_numpy(tmp_path):
    """No site-packages, dist-packages (where a system pip puts a course) or any other
    package folder of the machine is readable: only the standard library and numpy."""
    found = _paths_raised(tmp_path, PACKAGE_WALK)
    numpy = "/opt/grader-site/numpy"
    beyond = [folder for folder in found if folder != numpy and not folder.startswith(numpy + "/")]
    assert beyond == [], "\n".join(beyond)


PROGRAM_WALK = r"""
import os, sys, sysconfig
def probe():
    # Every program a submission could run: an executable file that is not a library, outside
    # the standard library (whose few scripts have no shell to run them).
    stdlib = sysconfig.get_paths()["stdlib"]
    found = []
    for folder, subfolders, files in os.walk("/", onerror=lambda error: None):
        subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in ("/proc", "/sys", "/dev", stdlib)]
        for name in files:
            path = os.path.join(folder, name)
            if (os.path.isfile(path) and os.access(path, os.X_OK) and ".so" not in name
                    and not name.endswith((".py", ".pyc")) and os.path.getsize(path) > 0):
                found.append(path)
    raise RuntimeError("\n".join(found))
"""


@pytest.mark.bubblewrap
def test_bubblewrap_shows_no_program_but_its_own_python(tmp_path):
    found = _paths_raised(tmp_path, PROGRAM_WALK)
    beyond = [path for path in found if os.path.realpath(path) != os.path.realpath(sys.executable)]
    assert beyond == [], "\n".join(beyond)
