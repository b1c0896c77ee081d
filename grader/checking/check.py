"""How a property check is written: the :func:`check` decorator and Hypothesis's settings.

Each assignment keeps its checks in ``grader/assignments/<name>/checks/``, one module
per function (or property family) under test. A check is a function named
``test_<name>`` in ``checks/<module>.py``; its stable id, used by rubrics and reports, is
``<module>.<name>`` (``checks/mask.py::test_rows_sum_to_one`` is
``mask.rows_sum_to_one``). Renaming one changes the report contract.

To add a check: write the function in one of those modules, decorated with
:func:`check`, taking the ``submission`` fixture first; then give its id points in the
rubric. Call the student through ``submission`` (``submission.<function>(...)`` returns
plain arrays from the sandboxed worker), compare with the assignment's reference *after*
the call returns, and fail through :mod:`grader.checking.expect` so the student reads what broke.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable

import hypothesis.core
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.internal.conjecture import providers
from hypothesis.strategies import SearchStrategy

# Hypothesis now and then draws a constant found in the source of "local" modules (those
# outside site-packages): the grader's own when it runs from a checkout, and only those
# loaded so far. The draws, and so the grades, would depend on how the grader was
# installed and on what its process had imported. Graders draw from Hypothesis's own
# constants only. (Hypothesis is pinned exactly, so this internal cannot move under us.)
_NO_LOCAL_CONSTANTS = providers.Constants()
providers._get_local_constants = lambda: _NO_LOCAL_CONSTANTS

# Two costs of every live run that buy graders nothing (a failing check's live run is most
# of a buggy head's grading time): Hypothesis digests the check's source afresh at each
# run (the seed of a derandomized run; the source of a running grader does not change),
# and it saves, seeds and restores the global `random` and `numpy.random` states around
# every example, for tests that draw from them. No check does: arrays come from seeded
# generators (grader.checking.strategies), and the submission runs in another process. A check
# must keep it so. Together about a tenth of a cold batch's check-process time.
hypothesis.core.function_digest = functools.cache(hypothesis.core.function_digest)
hypothesis.core.deterministic_PRNG = lambda seed=0: contextlib.nullcontext()

# Every setting is explicit: Hypothesis picks another profile when it detects CI, and a
# student's local run must get exactly the grade CI gives.
GRADING_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=40,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    print_blob=False,
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
    verbosity=Verbosity.quiet,
)


def check(*, max_examples: int | None = None, **strategies: SearchStrategy[Any]) -> Callable:
    """Turn ``test_x(submission, **drawn)`` into a derandomized property check.

    Each keyword names a strategy for one argument; with none, the check runs once.
    The calls made by the last example run become the failure's counterexample. Every
    example's drawn arguments reach ``submission.begin_example`` and how it ended reaches
    ``submission.end_example``: that is how :mod:`grader.engine.examples` records examples for
    replay and :mod:`grader.engine.traces` records how Hypothesis shrank a failure.

    Parameters:

    max_examples
        How many examples Hypothesis runs at most, default ``None``: the grader's 40. A
        larger number costs every submission time; a smaller one suits an expensive
        property. Ignored by a check with no strategies. Example: ``@check(max_examples=20,
        X=matrices())``.
    strategies
        One keyword per drawn argument of the check, each a Hypothesis strategy (build
        arrays with :func:`~grader.checking.strategies.arrays` and
        :func:`~grader.checking.strategies.sides`, so the course secret and shrinking
        apply); the check is called with one drawn value for each, by name. Example:
        ``@check(X=matrices(), eps=st.sampled_from((0.5, 2.0)))``.

    The decorated function is ``test_<name>(submission, **drawn)`` in
    ``checks/<module>.py``, with id ``<module>.<name>``. It fails by raising
    :class:`~grader.checking.outcomes.CheckFailure` (every assertion of
    :mod:`grader.checking.expect` does), whose message is what the student reads. A call of
    the student's that raises, hangs or crashes is reported as such without the check's
    help; any other exception of the check's own code (a plain ``assert`` included) is
    reported as an error of the check itself ("please report this to your instructor"),
    not as the student's failure. Example::

        @check(X=matrices())
        def test_rows_have_mean_zero(submission, X):
            d = X.shape[1]
            out = expect.array(submission.layer_norm(X, np.ones(d), np.zeros(d)), "layer_norm(X, 1, 0)")
            expect.close(out.mean(axis=-1), np.zeros(len(X)), "the mean of each row of layer_norm(X, 1, 0)")

        @check()
        def test_handout_example(submission):   # no strategies: runs once
            ...
    """

    def decorate(test: Callable) -> Callable:
        @functools.wraps(test)
        def run_example(submission: Any, **drawn: Any) -> None:
            submission.begin_example(drawn)
            try:
                test(submission, **drawn)
            except BaseException as error:
                submission.end_example(error)
                raise
            submission.end_example(None)

        if not strategies:
            return run_example
        chosen = settings(GRADING_SETTINGS, max_examples=max_examples or GRADING_SETTINGS.max_examples)
        return chosen(given(**strategies)(run_example))

    return decorate
