"""Why a check did not pass: the exceptions checks raise and the proxy raises for them.

Each carries a ``status`` for the report (``failed``, ``error`` or ``timeout``), a
``kind`` slug naming what happened, and a message written for a student. The pytest
plugin turns whichever of these ends a check into that check's result.
"""

from __future__ import annotations

import builtins
from typing import Any

from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.internal.escalation import InterestingOrigin

PASSED = "passed"


def outcome(error: BaseException | None) -> str:
    """How an example ended, as Hypothesis tells outcomes apart: passed, invalid, or the
    type and place of the error (see grader.engine.traces)."""
    if error is None:
        return PASSED
    if isinstance(error, UnsatisfiedAssumption):
        return "invalid"
    return str(InterestingOrigin.from_exception(error))


class CheckFailure(AssertionError):
    """The submission answered, but the property under test does not hold.

    What a check raises to fail (every assertion of :mod:`grader.checking.expect` raises
    it); raise it yourself for a property ``expect`` has no assertion for. The check is
    reported ``failed``, kind ``wrong_answer``, with ``message`` as its feedback and the
    calls of the failing example as its counterexample. It is an :class:`AssertionError`,
    but a plain ``assert`` is not it: that is reported as an error of the check itself.

    Parameters (kept as attributes of the same names):

    message
        The sentence the student reads: what was called, what is wrong, and what it should
        be. Example: ``"row_stats(X) returns a mean of shape (4,), expected (4, 1)"``.
    expected
        What the counterexample in the report shows as expected (an array, a number, a
        shape), keyword-only, default ``None``: none shown.
    got
        What it shows as what the student's code gave, keyword-only, default ``None``.

    Example::

        if not np.all(np.diff(out, axis=-1) >= 0):
            raise CheckFailure("sort_rows(X) is not sorted along each row", expected=np.sort(X), got=out)
    """

    status = "failed"
    kind = "wrong_answer"

    def __init__(self, message: str, *, expected: Any = None, got: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got


class SubmissionError(Exception):
    """The submission did not answer a call: it raised, crashed, hung or is missing.

    ``calls`` holds the calls of the example that really failed, for failures that make
    the rest of a check fail fast: Hypothesis then shrinks towards inputs that were never
    run, so its final example would be the wrong counterexample.
    """

    status = "error"
    kind = "error"
    # After this failure every later call of the check fails at once with it (so a live
    # Hypothesis run could only repeat it), and whether an input is to blame at all.
    fails_fast = False
    caused_by_input = True

    def __init__(self, message: str, *, calls: list | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.calls = calls


class ImportFailed(SubmissionError):
    """The submission could not be imported, so no function of it can be called."""

    kind = "import_failed"
    fails_fast = True
    caused_by_input = False


class ImportTimedOut(ImportFailed):
    status = "timeout"
    kind = "import_timeout"


class FunctionMissing(SubmissionError):
    kind = "missing_function"


class CallRaised(SubmissionError):
    kind = "raised"

    def __init__(
        self, message: str, *, exception_type: str, line: int | None, text: str = "", kinds: tuple[str, ...] | None = None
    ) -> None:
        super().__init__(message, calls=None)
        self.exception_type = exception_type
        self.line = line
        self.text = text  # the exception's own message, as the submission raised it
        # The built-in exception classes it is an instance of ("ValueError", "Exception", ...),
        # as the worker read them; by default, those of the built-in class of that name.
        self.kinds = _built_in_kinds(exception_type) if kinds is None else kinds


def _built_in_kinds(name: str) -> tuple[str, ...]:
    kind = getattr(builtins, name, None)
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        return ()
    return tuple(base.__name__ for base in kind.__mro__ if base is not object)


class NotImplementedYet(CallRaised):
    """The function still raises NotImplementedError, as the template's stubs do."""

    kind = "not_implemented"


class WorkerCrashed(SubmissionError):
    """The worker process died or broke the wire protocol during a call."""

    kind = "crashed"
    fails_fast = True


class CallTimedOut(SubmissionError):
    status = "timeout"
    kind = "timeout"
    fails_fast = True
