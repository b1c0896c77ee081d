"""Inferring what a wrong function computes, step by step (public: see :mod:`grader.authoring`).

A function is a :class:`Model`: named tables of the ways each step may be done (the
lesson's and the wrong ones students write), searched in :class:`Stage` s against the
function's answers to its probes; :func:`explain` returns every combination of ways that
gives those answers, and :func:`proven` the wrong steps all of them share. The shipped
assignments' ``steps.py`` are worked examples.

An inference is an entry of :attr:`Mistakes.inferred <grader.diagnoses.Mistakes.inferred>`:
it runs for a wrong function that no mistake's variant or test explained (a
``beside_answers`` one aside), and its :class:`Finding` names each
proven wrong step by its mistake id (each step's ``mistake`` must be an id of the
assignment's :class:`~grader.diagnoses.Mistake` s, told with the step's ``words``). A
small one, for a ``layer_norm`` whose variance or divisor may be wrong, or both::

    import numpy as np
    from grader.authoring.mistakes import values_read
    from grader.authoring.steps import Finding, Model, Stage, Step, explain, finding, ok, proven

    VARIANCES = {                                # a table: each way of one step, the lesson's first
        ok("the variance"): lambda X: X.var(axis=-1, keepdims=True),
        Step("the sample variance (ddof=1)", "layer_norm_sample_variance"): lambda X: X.var(axis=-1, ddof=1, keepdims=True),
    }
    DIVISORS = {
        ok("np.sqrt(var + eps)"): lambda var, eps: np.sqrt(var + eps),
        Step("np.sqrt(var) + eps", "layer_norm_eps_outside_sqrt"): lambda var, eps: np.sqrt(var) + eps,
        Step("var + eps, with no square root", "layer_norm_divides_by_variance"): lambda var, eps: var + eps,
    }

    def layer_norm(ways, args, kwargs):          # one probe's answer, made one way of every step
        (X, gamma, beta), eps = args, kwargs.get("eps", 1e-5)
        centred = X - X.mean(axis=-1, keepdims=True)
        return gamma * centred / ways["divisor"](ways["variance"](X), eps) + beta

    LAYER_NORM = Model(tables={"variance": VARIANCES, "divisor": DIVISORS},
                       stages=(Stage(("variance", "divisor")),), compute=layer_norm)

    def infer_layer_norm(got, call, helpers, standing):
        probes = [(probe.args, probe.kwargs) for probe in PROBES["layer_norm"]]
        wrong = proven(explain(LAYER_NORM, probes, values_read(got)))
        return finding(wrong, "layer_norm divides by") if wrong is not None else Finding([], [])

What this module exports, besides the classes and functions documented below:

``Table``
    The type of a step table: each way of one step (a :class:`Step`, or a tuple of steps
    taken together) -> what that way does, any value ``compute`` uses (a function, a
    number, a flag); the lesson's way (:func:`ok`) first. Example:
    ``DIVISIONS: Table = {ok("/"): lambda s, c: s / c, Step("//", "floor_division"): lambda s, c: s // c}``.
``Ways``
    The type of what :attr:`Model.compute` is given first: table name -> the value of the
    way chosen in that table. Example: ``ways["shift"](x)``.
``ANY``, ``KIND``
    Values of :func:`explain`'s ``raises``, how it reads a probe the student's function
    raised on. By default (``"unread"``, which this module does not export: leave
    ``raises`` out) such a probe proves nothing of any way. ``ANY``: it fits only a way that
    raises on it too. ``KIND``: only a way that raises alike, so a raise on purpose
    (``NotImplementedError``, an ``assert``: ``"refused"`` in :func:`values_read
    <grader.diagnoses.values_read>`'s values) fits no way. Example:
    ``explain(model, probes, values, prefer_alike=False, raises=ANY)``.
``RAISED``
    The string ``"raised"``: what a way that raised answers (:func:`evaluate`,
    :meth:`Model.answer`), and the value of a student's call that raised by accident.
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
