"""The check process: a trusted ``python -m grader.engine.check_process`` that runs the check
library for one submission after another, so pytest, Hypothesis and the checks are
imported once per job instead of once per submission.

It never imports a submission (each run starts its own sandboxed worker through
:mod:`grader.engine.plugin`). Requests arrive on stdin and replies leave on stdout, one JSON
object per line; both are moved to private descriptors at start, and each
run's pytest output goes to a file the request names, so nothing pytest prints can
break a reply::

    request: {"args": [pytest arguments], "output": "/path/for/pytest/output"}
    reply:   {"exit": pytest exit code}
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import signal
import sys
import threading
import time

from grader.sandbox import workers

PARENT_POLL_S = 0.5
# Where bubblewrap is installed, its zygote starts first: the sandbox imports numpy on the
# other core while this process imports pytest and Hypothesis. (If the grader then runs
# workers as plain processes, it is never asked for anything and dies with this process.)
if shutil.which("bwrap"):
    workers.zygote()

# Imported now, while the grader is still starting, rather than during the first run.
import _hypothesis_pytestplugin  # noqa: F401, E402
import pytest  # noqa: E402
import pytest_jsonreport.plugin  # noqa: F401, E402

import grader.engine.plugin  # noqa: F401, E402
import grader.engine.pytest_entry  # noqa: F401, E402
from grader import assignments  # noqa: E402

# The default assignment's checks; another's are imported by its first run (once per process).
_package = importlib.import_module(assignments.get().check_packages[0])
for _module in pkgutil.iter_modules(_package.__path__):
    importlib.import_module(f"{_package.__name__}.{_module.name}")


def _claim_protocol_fds() -> tuple[int, int]:
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    return requests, replies


def _run(args: list[str], output: str) -> int:
    """``pytest.main(args)`` with stdout and stderr (the descriptors too) sent to ``output``."""
    saved = [os.dup(1), os.dup(2)]
    with open(output, "wb") as stream:
        os.dup2(stream.fileno(), 1)
        os.dup2(stream.fileno(), 2)
        try:
            return int(pytest.main(args))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, original in zip((1, 2), saved):
                os.dup2(original, fd)
                os.close(original)


def _die_with_parent() -> None:
    """End this process, with its group, once its parent is gone. A Dask nanny that kills
    its worker (the parent here) kills nothing else, and a killed grader cannot end this
    process itself; a run in progress would go on grading for nobody. (Not
    PR_SET_PDEATHSIG: that fires when the parent's thread that started this process ends,
    and a worker's threads come and go.)"""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os.killpg(os.getpgid(0), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    _die_with_parent()
    requests, replies = _claim_protocol_fds()
    with os.fdopen(requests, "r", encoding="utf-8") as incoming, os.fdopen(replies, "w", encoding="utf-8") as outgoing:
        for line in incoming:
            request = json.loads(line)
            code = _run(request["args"], request["output"])
            outgoing.write(json.dumps({"exit": code}) + "\n")
            outgoing.flush()
    # Asked to stop: end the sandbox and remove its folder, then skip the interpreter's
    # slow teardown of everything pytest and Hypothesis loaded (about 60 ms).
    workers.close_zygote()
    os._exit(0)


if __name__ == "__main__":
    main()
