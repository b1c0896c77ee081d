"""Writing property checks (public: see :mod:`grader.authoring`).

A check is ``test_<name>(submission, **drawn)`` in ``checks/<module>.py``, decorated with
:func:`check`; its id is ``<module>.<name>``. It calls the student through
``submission.<function>(...)`` (plain values back from the sandboxed worker), computes
what the reference gives *after* the call returns, and fails through ``expect`` so the
student reads what broke::

    from grader.authoring.checks import arrays, check, expect, sides
    from ..calls import FUNCTIONS

    @st.composite
    def matrices(draw):
        n, d = draw(sides()), draw(sides())      # every size first, so they shrink
        return arrays(draw).floats((n, d))       # then the values, from one seeded source

    @check(X=matrices())
    def test_rows_have_mean_zero(submission, X):
        out = expect.array(submission.layer_norm(X), "layer_norm(X)")
        expect.close(out.mean(axis=-1), np.zeros(len(X)), "the mean of each row of layer_norm(X)")

The strategies draw from the grader's seeded generators, so a course secret applies and
every machine draws the same examples.

A check that a function leaves its inputs unchanged reads them as the student's process
left them after the call (the arrays a check passes are copies sent to another process:
its own are never changed)::

    called = submission.call("layer_norm", [X, gamma, beta], return_args=True)
    expect.unchanged("layer_norm", "X", X, called.args_after[0])

``expect.pair(value, call, ("mean", "var"))`` reads a function that returns two arrays;
raise :class:`CheckFailure` with a sentence for a property ``expect`` has no assertion for.
"""

from __future__ import annotations

from grader.checking import expect
from grader.checking.check import check
from grader.checking.outcomes import CheckFailure
from grader.checking.strategies import MAX_SIDE, Arrays, arrays, sides, values

# CheckFailure(message): what a check raises for a property ``expect`` has no assertion for.
__all__ = ["MAX_SIDE", "Arrays", "CheckFailure", "arrays", "check", "expect", "sides", "values"]
