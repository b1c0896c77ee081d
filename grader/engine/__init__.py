"""The grading engine: runs an assignment's checks against a submission and scores them.

Data flows one way: the command side (grader.cli) and the batch side (grader.batch) hand it
submission files; it reads each (grader.sources), runs the check library in a trusted check
process (pytest + Hypothesis) against the submission in its sandboxed worker (grader.sandbox),
and scores the results into a report (grader.report). Its modules import nothing heavier
from here: this package's ``__init__`` is empty on purpose, so the check process and the
command each import only what they use.
"""
