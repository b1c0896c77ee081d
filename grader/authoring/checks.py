"""Writing property checks (public: see :mod:`grader.authoring`).

A check is ``test_<name>(submission, **drawn)`` in ``checks/<module>.py``, decorated with
:func:`check`; its id is ``<module>.<name>``. It calls the student through
``submission.<function>(...)`` (plain values back from the sandboxed worker), computes
what the reference gives *after* the call returns, and fails through ``expect`` so the
student reads what broke::

    import numpy as np
    from hypothesis import strategies as st

    from grader.authoring.checks import arrays, check, expect, sides
    from ..calls import FUNCTIONS

    @st.composite
    def matrices(draw):
        n, d = draw(sides()), draw(sides())      # every size first, so they shrink
        return arrays(draw).floats((n, d))       # then the values, from one seeded source

    @check(X=matrices())
    def test_rows_have_mean_zero(submission, X):
        d = X.shape[1]
        out = expect.array(submission.layer_norm(X, np.ones(d), np.zeros(d)), "layer_norm(X, 1, 0)")
        expect.close(out.mean(axis=-1), np.zeros(len(X)), "the mean of each row of layer_norm(X, 1, 0)")

The strategies draw from the grader's seeded generators, so a course secret applies and
every machine draws the same examples.

``submission`` is the student's code: ``submission.<function>(*args, **kwargs)`` returns
the value the student's function returned, after a round trip to their sandboxed process
(an optional argument left at None is not sent), and
``submission.call(name, args, kwargs, return_args=True)`` returns a reply with
``.value`` and ``.args_after``. A call that raises, hangs or crashes ends the check by
itself, with feedback that says so.

A check that a function leaves its inputs unchanged reads them as the student's process
left them after the call (the arrays a check passes are copies sent to another process:
its own are never changed)::

    called = submission.call("layer_norm", [X, gamma, beta], return_args=True)
    expect.unchanged("layer_norm", "X", X, called.args_after[0])

``expect.pair(value, call, ("mean", "var"))`` reads a function that returns two arrays;
raise :class:`CheckFailure` with a sentence for a property ``expect`` has no assertion for.

What this module exports:

- :func:`check`: the decorator that makes ``test_<name>`` a property check;
- ``expect``: the module of assertions (:mod:`grader.checking.expect`), each raising a
  :class:`CheckFailure` the student reads: ``expect.array(value, call)`` and
  ``expect.pair(value, call, names)`` read what the student's function returned as
  arrays; ``expect.shape(got, shape, what)``, ``expect.close(got, expected, what,
  rtol=..., atol=...)`` (``atol`` may be an array: a tolerance per entry or per row),
  ``expect.finite(got, what)``, ``expect.unchanged(function, name, before, after)``,
  ``expect.same_attention(got, expected)`` and ``expect.holds(condition, message)`` test
  it; ``expect.raises(ValueError, call, submission.f, *args)`` expects a call to refuse its
  input, as a handout promises; ``expect.describe(value)`` and
  ``expect.close_mask(got, expected)`` help write a failure of the check's own;
  ``expect.RTOL`` (1e-4) and ``expect.ATOL`` (1e-5) are the default tolerances;
- :func:`arrays`, :class:`Arrays`, :func:`sides` and :func:`values`: the strategies'
  building blocks (every size drawn with :func:`sides` first, then every array value from
  one :func:`arrays` source);
- :class:`CheckFailure`: what a check raises to fail, with a sentence for the student;
- ``MAX_SIDE``: the largest side :func:`sides` draws by default, 6 (a shrunk
  counterexample fits on a screen); bound a course's own sizes by it:
  ``sides(min(5, MAX_SIDE))``.
"""

from __future__ import annotations

from grader.checking import expect
from grader.checking.check import check
from grader.checking.outcomes import CheckFailure
from grader.checking.strategies import MAX_SIDE, Arrays, arrays, sides, values

# CheckFailure(message): what a check raises for a property ``expect`` has no assertion for.
__all__ = ["MAX_SIDE", "Arrays", "CheckFailure", "arrays", "check", "expect", "sides", "values"]
