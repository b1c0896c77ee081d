"""Checks of ``row_stats(X) -> (mean, var)``: shapes first, then each value on its own."""

from grader.authoring.checks import check, expect

from .. import strategies
from ..calls import row_stats as reference_row_stats

CALL = "row_stats(X)"


def _stats(value, call=CALL):
    """``(mean, var)`` as float arrays, or a failure saying what came back instead."""
    expect.holds(
        isinstance(value, tuple) and len(value) == 2,
        f"{call} should return a pair (mean, var); it returned {expect.describe(value)}",
    )
    return expect.array(value[0], f"{call}[0] (mean)"), expect.array(value[1], f"{call}[1] (var)")


def _per_row(got, n, what):
    """``got`` as n numbers, one per row of X, whether it came as (n, 1) or (n,): the
    shapes are a check of their own, so a value check says only what the values are."""
    expect.holds(
        got.size == n and got.ndim in (1, 2) and got.shape[0] == n,
        f"{what} has shape {got.shape}: it should hold one number per row of X ({n} rows), shape ({n}, 1)",
        expected=(n, 1),
        got=got.shape,
    )
    return got.reshape(n)


@check(X=strategies.matrices())
def test_shapes(submission, X):
    """mean and var both have shape (n, 1), one number per row (keepdims=True)."""
    mean, var = _stats(submission.row_stats(X))
    n = X.shape[0]
    expect.shape(mean, (n, 1), f"mean, for X of shape {X.shape},")
    expect.shape(var, (n, 1), f"var, for X of shape {X.shape},")


@check(X=strategies.matrices())
def test_mean(submission, X):
    """mean[i, 0] is the mean of row i of X (of its d entries, not of a column)."""
    mean, _ = _stats(submission.row_stats(X))
    n = X.shape[0]
    got = _per_row(mean, n, "mean")
    expected, _ = reference_row_stats(X)
    expect.close(got, expected.reshape(n), "mean, the mean of each row of X,")


@check(X=strategies.matrices())
def test_variance(submission, X):
    """var[i, 0] is the population variance of row i: the mean of its squared deviations (divide by d, not d - 1)."""
    _, var = _stats(submission.row_stats(X))
    n = X.shape[0]
    got = _per_row(var, n, "var")
    _, expected = reference_row_stats(X)
    expect.close(got, expected.reshape(n), "var, the mean of (X[i] - mean[i]) ** 2 for each row i,")
