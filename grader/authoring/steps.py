"""Inferring what a wrong function computes, step by step (public: see :mod:`grader.authoring`).

A function is a :class:`Model`: named tables of the ways each step may be done (the
lesson's and the wrong ones students write), searched in :class:`Stage` s against the
function's answers to its probes; :func:`explain` returns every combination of ways that
gives those answers, and :func:`proven` the wrong steps all of them share. The shipped
assignments' ``steps.py`` are worked examples.
"""

from __future__ import annotations

from grader.diagnoses.inference import (
    RAISED,
    Finding,
    Step,
    cached,
    close,
    evaluate,
    finding,
    lesson,
    ok,
    refused,
    shared_wrong,
)
from grader.diagnoses.search import ANY, KIND, Model, Stage, Table, Ways, explain, proven, remembered, same_value

__all__ = [
    "ANY", "KIND", "RAISED", "Finding", "Model", "Stage", "Step", "Table", "Ways", "cached", "close", "evaluate",
    "explain", "finding", "lesson", "ok", "proven", "refused", "remembered", "same_value", "shared_wrong",
]
