"""Checks of ``attention(Q, K, V, mask=None) -> (out, A)`` without a mask (and its inputs)."""

import numpy as np

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check

WORKED_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
WORKED_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])


def _column_slack(V: np.ndarray) -> np.ndarray:
    """The tolerance of each column of out: column j averages V's column j, so its rounding
    grows with that column's largest entry (and never falls below expect.ATOL)."""
    return expect.ATOL * np.maximum(1.0, np.abs(V).max(axis=0, initial=0.0))


@check()
def test_worked_example(submission):
    """The lesson's worked example: A to 4 decimals, out to 2 decimals."""
    out, A = expect.pair(submission.attention(WORKED_Q, WORKED_Q, WORKED_V), "attention(Q, K, V)")
    expected_out, expected_A = reference.attention(WORKED_Q, WORKED_Q, WORKED_V)
    expect.close(A, expected_A, "A", rtol=0, atol=5e-5)
    expect.close(out, expected_out, "out", rtol=0, atol=5e-3)


@check(qkv=strategies.distinct_size_inputs())
def test_shapes(submission, qkv):
    """out has shape (n_q, d_v) and A has shape (n_q, n_k)."""
    Q, K, V = qkv
    out, A = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    expect.shape(out, (Q.shape[0], V.shape[1]), "out")
    expect.shape(A, (Q.shape[0], K.shape[0]), "A")


@check(qkv=strategies.attention_inputs())
def test_rows_sum_to_one(submission, qkv):
    """Every row of A is a probability distribution: it sums to 1."""
    Q, K, V = qkv
    _, A = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    expect.shape(A, (Q.shape[0], K.shape[0]), "A")
    expect.sums_to_one(A.sum(axis=-1), "A.sum(axis=-1)")


@check(qkv=strategies.attention_inputs())
def test_nonnegative(submission, qkv):
    """A has no negative (or non-finite) weights."""
    Q, K, V = qkv
    _, A = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    expect.shape(A, (Q.shape[0], K.shape[0]), "A")  # an empty A has no negative weight either
    expect.finite(A, "A")
    bad = np.argwhere(A < 0)
    expect.holds(bad.size == 0, f"A has a negative weight at index {bad[:1].tolist()}", got=A)


@check(qkv=strategies.attention_inputs())
def test_convex_combination(submission, qkv):
    """Each column of out lies between the min and max of that column of V."""
    Q, K, V = qkv
    out, _ = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    expect.shape(out, (Q.shape[0], V.shape[1]), "out")
    expect.finite(out, "out")  # nan compares False with both bounds: it is never "outside"
    slack = _column_slack(V)
    low, high = V.min(axis=0) - slack, V.max(axis=0) + slack
    outside = np.argwhere((out < low) | (out > high))
    if outside.size:
        i, j = (int(v) for v in outside[0])
        expect.holds(
            False,
            f"out[{i}, {j}] = {out[i, j]:.6g} lies outside V's column {j} range "
            f"[{V[:, j].min():.6g}, {V[:, j].max():.6g}]: outputs must be averages of value rows",
            got=out,
        )


@check(qkv=strategies.scaling_inputs())
def test_scaling(submission, qkv):
    """Scores are divided by sqrt(d_k), whatever d_k, d_v and n are."""
    Q, K, V = qkv
    _, A = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V)")
    _, expected_A = reference.attention(Q, K, V)
    expect.close(A, expected_A, f"A = softmax(Q K^T / sqrt({Q.shape[1]}))")


@check(qkvm=strategies.large_score_masked_inputs())
def test_large_logits(submission, qkvm):
    """attention stays finite and correct when the scores reach about ±1e3, with or without a mask
    (a masked key may hold its row's largest score)."""
    Q, K, V, mask = qkvm
    call = "attention(Q, K, V)" if mask is None else "attention(Q, K, V, mask)"
    got = expect.pair(submission.attention(Q, K, V, mask), call)
    expect.finite(got[1], "A")
    expect.same_attention(got, reference.attention(Q, K, V, mask), rtol=1e-3)


@check(qkvm=strategies.any_attention_inputs())
def test_matches_reference(submission, qkvm):
    """out and A equal the reference head's, with and without a mask (out's column j within a tolerance that grows with V's column j)."""
    Q, K, V, mask = qkvm
    call = "attention(Q, K, V)" if mask is None else "attention(Q, K, V, mask)"
    out, A = expect.pair(submission.attention(Q, K, V, mask), call)
    expected_out, expected_A = reference.attention(Q, K, V, mask)
    # np.allclose's relative tolerance, as the lesson's own asserts: A float32 head passes.
    expect.close(A, expected_A, "A", rtol=expect.ALLCLOSE_RTOL)
    expect.close(out, expected_out, "out", rtol=expect.ALLCLOSE_RTOL, atol=_column_slack(V)[None, :])


@check(qkvm=strategies.masked_attention_inputs())
def test_inputs_unchanged(submission, qkvm):
    """attention leaves Q, K, V and mask exactly as it received them."""
    reply = submission.call("attention", list(qkvm), return_args=True)
    for name, before, after in zip(("Q", "K", "V", "mask"), qkvm, reply.args_after):
        changed = not isinstance(after, np.ndarray) or not np.array_equal(before, after, equal_nan=True)
        expect.holds(
            not changed,
            f"attention(Q, K, V, mask) changed its argument {name} in place; work on a copy instead",
            expected=before,
            got=after,
        )
