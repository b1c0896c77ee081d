"""Checks of ``attention(Q, K, V, mask)`` with a mask (True = may attend)."""

import numpy as np

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check

CALL = "attention(Q, K, V, mask)"


@check(qkvm=strategies.causal_attention_inputs())
def test_no_future_leakage(submission, qkvm):
    """Under a causal mask, every masked weight is exactly 0."""
    Q, K, V, mask = qkvm
    _, A = expect.pair(submission.attention(Q, K, V, mask), CALL)
    expect.shape(A, mask.shape, "A")
    expect.finite(A, "A")  # every row keeps a key: nan anywhere is no distribution
    leaks = np.argwhere(~mask & (A != 0))
    if leaks.size:
        i, j = (int(v) for v in leaks[0])
        expect.holds(False, f"A[{i}, {j}] = {A[i, j]:.6g}, but token {i} may not attend to future token {j}", got=A)


@check(qkvm=strategies.one_of_masks())
def test_rows_sum_to_one(submission, qkvm):
    """With a mask, rows of A still sum to 1: softmax renormalises over what survives."""
    Q, K, V, mask = qkvm
    _, A = expect.pair(submission.attention(Q, K, V, mask), CALL)
    expect.shape(A, mask.shape, "A")
    expect.sums_to_one(A.sum(axis=-1), "A.sum(axis=-1)")


@check(qkvm=strategies.causal_attention_inputs())
def test_first_token_self(submission, qkvm):
    """Under a causal mask the first token attends only to itself: A[0, 0] == 1."""
    Q, K, V, mask = qkvm
    _, A = expect.pair(submission.attention(Q, K, V, mask), CALL)
    expect.shape(A, mask.shape, "A")
    expect.close(A[0, 0], np.float64(1.0), "A[0, 0]", rtol=0, atol=1e-6)


@check(qkvm=strategies.masked_attention_inputs())
def test_arbitrary(submission, qkvm):
    """Any mask that keeps at least one key per query gives the reference's out and A."""
    Q, K, V, mask = qkvm
    got = expect.pair(submission.attention(Q, K, V, mask), CALL)
    expect.same_attention(got, reference.attention(Q, K, V, mask))


@check(qkvm=strategies.one_row_fully_masked())
def test_fully_masked_row_nan(submission, qkvm):
    """A fully masked row of A is nan (the signal of a broken mask), and so is that row of out;
    every other row, of A and of out, stays correct: the nan stays in that row."""
    Q, K, V, mask = qkvm
    out, A = expect.pair(submission.attention(Q, K, V, mask), CALL)
    nan_stays_in_its_row((out, A), reference.attention(Q, K, V, mask), mask, V, ("query", "key"))


def nan_stays_in_its_row(got: tuple, expected: tuple, mask: np.ndarray, V: np.ndarray, words: tuple[str, str]) -> None:
    """The one fully masked row of ``mask`` is all nan in A and in out, and every other row of
    both is the reference's (``words``: what the message calls a row and a column of A).

    out's row is held to nan only in the columns of ``V`` with no zero: np.dot's BLAS skips
    a zero factor, so a correct np.dot(A, V) gives 0, not nan, where V's column is all 0s
    there (``A @ V`` does not); the strategies draw V without zeros, so this rarely matters.
    """
    out, A = got
    expected_out, expected_A = expected
    query, key = words
    row = int(np.argmax(~mask.any(axis=1)))
    expect.shape(A, mask.shape, "A")
    expect.holds(np.isnan(A[row]).all(), f"the mask lets {query} {row} attend to no {key}, so A[{row}] should be all nan", got=A)
    expect.close(A, expected_A, "A")
    expect.shape(out, expected_out.shape, "out")
    held = ~(V == 0).any(axis=0)
    expect.holds(np.isnan(out[row, held]).all(), f"A[{row}] is nan, so out[{row}] = A[{row}] @ V should be all nan too", got=out)
    expected_out = expected_out.copy()
    expected_out[row, ~held] = out[row, ~held]
    expect.close(out, expected_out, "out")
