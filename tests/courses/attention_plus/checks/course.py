"""The course's own check: with the identity as V, attention's output is its weights."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from grader.authoring.checks import arrays, check, expect, sides


@st.composite
def queries_and_keys(draw):
    n, d = draw(sides(5)), draw(sides(4))
    source = arrays(draw)
    return source.floats((n, d)), source.floats((n, d))


@check(qk=queries_and_keys())
def test_identity_values_give_the_weights(submission, qk):
    Q, K = qk
    V = np.eye(len(K))
    out, A = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    expect.close(out, A, "with V the identity, the output of attention(Q, K, V) (it should equal A)")
