"""Declaring known mistakes (public: see :mod:`grader.authoring`).

An assignment's ``mistakes`` callable returns a :class:`Mistakes`: for each function, a
few fixed probe inputs (:class:`Probe`), the reference that answers them, and the known
mistakes (:class:`Mistake`), most by a *variant* of the reference that makes exactly that
mistake. After the checks, a function that failed one is called on its probes; a mistake
is named when the function's answers match its variant's on every probe and the variant
differs from the reference on one of them, so correct code is never named.
``grader validate`` grades each variant as a submission: it must lose points on the checks
its mistake names in ``caught_by``, and be named, and nothing else.
"""

from __future__ import annotations

from grader.diagnoses import (
    RAISED,
    RIGHT,
    UNREADABLE,
    WRONG,
    Answer,
    BatchAxis,
    Evidence,
    Inferred,
    Mistake,
    Mistakes,
    Probe,
    StudentCall,
    changes_its_inputs,
    fixed_matrix,
    identical,
    same,
    student_function,
    values_read,
    weights,
)
from grader.diagnoses.unfinished import Stub

__all__ = [
    "RAISED", "RIGHT", "UNREADABLE", "WRONG", "Answer", "BatchAxis", "Evidence", "Inferred", "Mistake", "Mistakes",
    "Probe", "StudentCall", "Stub", "changes_its_inputs", "fixed_matrix", "identical", "same", "student_function",
    "values_read", "weights",
]
