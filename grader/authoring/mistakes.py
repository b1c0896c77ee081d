"""Declaring known mistakes (public: see :mod:`grader.authoring`).

An assignment's ``mistakes`` callable returns a :class:`Mistakes`: for each function, a
few fixed probe inputs (:class:`Probe`), the reference that answers them, and the known
mistakes (:class:`Mistake`), most by a *variant* of the reference that makes exactly that
mistake. After the checks, a function that failed one is called on its probes; a mistake
is named when the function's answers match its variant's on every probe and the variant
differs from the reference on one of them, so correct code is never named.
``grader validate`` grades each variant as a submission: it must lose points on the checks
its mistake names in ``caught_by``, and be named, and nothing else.

More exactly: once a check failed on a wrong answer or a raise (and none timed out or
crashed), *every* function of
:attr:`Mistakes.probes` is called on its probes (so that a function knows how the helpers
it calls stand), in the order of that mapping, and the diagnosis then tells only of the
functions one of whose checks failed. For each function, in turn:

1. right on every probe: nothing is said of it, except a ``beside_answers`` mistake such as
   changing its inputs (:attr:`Mistake.beside_answers`);
2. right over the student's own wrong helpers (:attr:`Mistakes.over_helpers`): nothing is
   said of it (its helpers' mistakes are, where they are made);
3. unfinished (a stub, :class:`Stub`): one sentence says so, and nothing else;
4. else its mistakes that match (:attr:`Mistake.variants`, :attr:`Mistake.shows_in`),
   then what its inference (:attr:`Mistakes.inferred`) proves or observes; a mistake whose
   :attr:`Mistake.builds_on` functions are not all right is not tested, and one of whose
   :attr:`Mistake.echoes` (or :attr:`Mistake.same_as`) was told already is not told.

A message is ``{"id": ..., "message": ...}`` in the report; ``"observed"`` and
``"unfinished"`` entries name no mistake. If anything of the assignment's own raises while
diagnosing (a ``consequence``, a ``shows_in`` test, a message with a stray brace, an id
that is no mistake's), the submission is told no diagnosis at all, and its grade stands.
``tests/courses/layer_norm/mistakes.py`` is a complete worked example::

    import numpy as np

    from grader.authoring.mistakes import Mistake, Mistakes, Probe, fixed_matrix
    from .calls import FUNCTIONS, row_stats

    def layer_norm_no_eps(X, gamma, beta, eps=1e-5):      # a variant: written as a student would
        mean, var = row_stats(X)
        return gamma * (X - mean) / np.sqrt(var) + beta

    WIDE, GAMMA, BETA = fixed_matrix(1, 3, 4), np.array([0.5, 1.5, -1.0, 2.0]), np.array([0.1, -0.2, 0.3, 1.0])
    KNOWN = Mistakes(
        probes={
            "row_stats": [Probe("row_stats", (WIDE,))],
            "layer_norm": [Probe("layer_norm", (WIDE, GAMMA, BETA)), Probe("layer_norm", (WIDE, GAMMA, BETA), {"eps": 0.5})],
        },
        reference=FUNCTIONS,
        mistakes=(
            Mistake("layer_norm_no_eps", "layer_norm never adds eps: divide by np.sqrt(var + eps).", "layer_norm",
                    variants=(layer_norm_no_eps,), builds_on=("row_stats",), caught_by=("layer_norm.uses_eps",)),
        ),
        helpers={"layer_norm": ("row_stats",)},
    )

What this module exports, besides the classes and functions documented below:

``RAISED``
    The string ``"raised"``: :attr:`Answer.value` of a call that raised (test it with
    ``answer.value is RAISED``; :attr:`Answer.raised` names the exception's type).
``RIGHT``, ``WRONG``, ``UNREADABLE``
    The strings ``"right"``, ``"wrong"`` and ``"unreadable"``: how a function stands once
    read, as an inference is told (its ``helpers`` and ``standing`` arguments, see
    :attr:`Mistakes.inferred`). ``RIGHT``: every answer the reference's. ``WRONG``: wrong
    answers, right only through a batch of one (:attr:`Mistakes.batch_axis`), right only
    over the student's wrong helpers, or an unfinished function whose answers still follow
    its input. ``UNREADABLE``: its calls hung or crashed, it is unfinished and no longer
    follows its input (None, zeros, a constant), or it is right only over helpers that are
    unreadable themselves. Example: ``if helpers == RIGHT:``
    read the function against the lesson's model of its helpers.
``StudentCall``
    The type of the student's own function as the diagnosis calls it (what
    :func:`student_function` returns, and what the ``student`` argument of
    :attr:`Mistakes.over_helpers` gives): positional arguments in, the student's value
    out, each call made in the student's sandbox; a call that raised raises in turn, so
    the lesson's code around it raises the same kind of exception. Example:
    ``stats: StudentCall = student("row_stats")``.
``Inferred``
    The type of one function's inference, an entry of :attr:`Mistakes.inferred`:
    ``inferred(got, call, helpers, standing) -> Finding``, where ``got`` is the student's
    answers to the function's probes (``list[Answer]``), ``call(probe)`` gives the
    student's :class:`Answer` to any :class:`Probe`, ``helpers`` is how the function's
    helpers stand (the worst of them; ``RIGHT`` for none) and ``standing`` maps each
    function read before it to how it stands. Example: ``INFERRED: dict[str, Inferred] =
    {"layer_norm": infer_layer_norm}``.
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
