"""The grader's own errors: each knows its exit status and its one-line message.

Library code raises these and never exits; ``grader.cli`` is the one place that turns
them into a message and an exit status. A submission's mistakes are never errors here:
they are check results in a report.
"""

from __future__ import annotations


class GraderError(Exception):
    """The grader could not do what it was asked (not: a submission scored badly)."""

    exit_code = 1


class UsageError(GraderError):
    """Bad input from the user: a missing file, an empty folder, clashing ids."""

    exit_code = 2


class RubricError(GraderError):
    """A rubric file that cannot be read or does not describe known checks."""

    exit_code = 3


class GradingFailed(GraderError):
    """The grader's own check run broke (not the submission's fault)."""

    exit_code = 4
