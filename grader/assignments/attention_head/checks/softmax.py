"""Checks of ``softmax(x, axis=-1)``."""

import numpy as np

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check


@check(x=strategies.logits(min_dims=2))
def test_rows_sum_to_one(submission, x):
    """Every row of softmax(x) sums to 1."""
    p = expect.array(submission.softmax(x), "softmax(x)")
    expect.shape(p, x.shape, "softmax(x)")
    expect.sums_to_one(p.sum(axis=-1), "softmax(x).sum(axis=-1)")


@check(x=strategies.logits())
def test_nonnegative(submission, x):
    """softmax(x) has no negative (or non-finite) entries."""
    p = expect.array(submission.softmax(x), "softmax(x)")
    expect.shape(p, x.shape, "softmax(x)")  # an empty array has no negative entry either
    expect.finite(p, "softmax(x)")
    bad = np.argwhere(p < 0)
    expect.holds(bad.size == 0, f"softmax(x) has a negative entry at index {bad[:1].tolist()}", got=p)


@check(x=strategies.logits(min_dims=2, max_dims=2), shift=strategies.values(50.0))
def test_shift_invariance(submission, x, shift):
    """Adding the same constant to every entry of a row leaves softmax unchanged."""
    shifts = shift * np.linspace(-1.0, 1.0, x.shape[0])[:, None]
    p = expect.array(submission.softmax(x), "softmax(x)")
    p_shifted = expect.array(submission.softmax(x + shifts), "softmax(x + c)")
    # Both sides are the student's: nan would equal nan, so neither may hold any.
    expect.finite(p, "softmax(x)")
    expect.finite(p_shifted, "softmax(x + c)")
    expect.close(p_shifted, p, "softmax(x + c), compared with softmax(x),")


@check(x=strategies.wide_range_logits())
def test_large_logits(submission, x):
    """softmax stays finite and correct for logits near ±1e3 and rows of very different scale."""
    p = expect.array(submission.softmax(x), "softmax(x)")
    expect.finite(p, "softmax(x)")
    expect.close(p, reference.softmax(x), "softmax(x)", rtol=1e-3)


@check(x_axis=strategies.logits_and_axis())
def test_axis(submission, x_axis):
    """softmax(x, axis=k) normalises along axis k, not always along the last one."""
    x, axis = x_axis
    p = expect.array(submission.softmax(x, axis=axis), f"softmax(x, axis={axis})")
    expect.close(p, reference.softmax(x, axis=axis), f"softmax(x, axis={axis})")


@check(x=strategies.logits())
def test_matches_reference(submission, x):
    """softmax(x) equals the reference softmax on random inputs."""
    p = expect.array(submission.softmax(x), "softmax(x)")
    expect.close(p, reference.softmax(x), "softmax(x)")


@check(x=strategies.logits())
def test_inputs_unchanged(submission, x):
    """softmax leaves the x it is given as it received it, as the lesson's does (x - x.max(...) is a new array)."""
    called = submission.call("softmax", [x], return_args=True)
    expect.unchanged("softmax", "x", x, called.args_after[0])
