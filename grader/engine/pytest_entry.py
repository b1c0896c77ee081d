"""The pytest plugin students install with the grader (its ``pytest11`` entry point).

It adds the ``--attention-*`` options and nothing else until ``--attention-submission``
is given; then it loads :mod:`grader.engine.plugin`, which runs the checks. Every pytest run in
an environment that has the grader installed loads this module, so it stays light: the
checks' plugin imports numpy and Hypothesis, about 0.2 s that a run of other tests
should not pay.
"""

from __future__ import annotations

import sys

import pytest

from grader.assignments import DEFAULT, NAMES
from grader.sandbox import ISOLATIONS, Limits


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("attention-grader", "grading a submission with attention-grader")
    group.addoption(
        "--attention-submission",
        metavar="PATH",
        action="append",
        help="the file to grade (the grader's batches repeat it: one pytest session grades several)",
    )
    group.addoption(
        "--attention-assignment",
        metavar="NAME|FOLDER",
        help=f"the assignment the file is written for: {', '.join(NAMES)}, an installed course's, or a course's "
        f"assignment folder (default: the rubric's, else {DEFAULT})",
    )
    group.addoption("--attention-rubric", metavar="PATH", help="run only the checks this rubric scores")
    defaults = Limits()
    group.addoption("--attention-call-timeout", type=float, default=defaults.call_timeout, metavar="S")
    group.addoption("--attention-check-budget", type=float, default=defaults.check_budget, metavar="S")
    group.addoption("--attention-submission-budget", type=float, default=defaults.submission_budget, metavar="S")
    group.addoption("--attention-memory-mb", type=int, default=defaults.memory_mb, metavar="MB")
    group.addoption("--attention-max-processes", type=int, default=defaults.max_processes, metavar="N")
    group.addoption(
        "--attention-sandbox",
        choices=["auto", *ISOLATIONS],
        default="auto",
        help="isolation of the submission: bubblewrap where it works (auto), or a plain process",
    )
    group.addoption(
        "--attention-examples",
        metavar="DIR",
        help="cache of recorded examples to replay before running Hypothesis live (see grader.engine.examples; "
        "default: the grader's cache folder)",
    )
    group.addoption("--attention-live", action="store_true", help="run every check live, without replay")
    group.addoption(
        "--attention-course-key",
        metavar="HEX",
        help="the grader's runs for a course with a secret: draw the examples' values from this key "
        "(see grader.checking.secret)",
    )
    group.addoption(
        "--attention-claims",
        metavar="DIR",
        help="the grader's batches: claim each submission in DIR before grading it, and skip one "
        "another job claimed (see grader.engine.claims)",
    )


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """A run that grades a submission writes nothing into the folder it runs in (a
    student's, a course's): no ``.pytest_cache`` (as ``-p no:cacheprovider``), and no
    ``__pycache__`` beside a course's check modules."""
    if any(arg == "--attention-submission" or arg.startswith("--attention-submission=") for arg in args):
        for plugin in ("cacheprovider", "stepwise"):  # stepwise reads the cache, as -p no:cacheprovider knows
            early_config.pluginmanager.set_blocked(plugin)
        sys.dont_write_bytecode = True


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("attention_submission"):
        # Registered now, it still gets this pytest_configure call (a historic hook).
        config.pluginmanager.import_plugin("grader.engine.plugin")
