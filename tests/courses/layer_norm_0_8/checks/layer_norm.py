"""Checks of ``layer_norm(X, gamma, beta, eps=1e-5)``: each a property of its own, so a
failure says which one broke (the normalisation of rows, gamma and beta, eps, the inputs)."""

import numpy as np

from grader.authoring.checks import check, expect

from .. import strategies
from ..calls import layer_norm as reference_layer_norm
from ..calls import row_stats as reference_row_stats
from ..rounding import x_hat_slack

CALL = "layer_norm(X, gamma, beta)"
UNIT_CALL = "layer_norm(X, np.ones(d), np.zeros(d))"

# The handout's example (section 4): a row of variance 4, one of variance 5, a constant row.
HANDOUT_X = np.array([[1.0, 1.0, 5.0, 5.0], [2.0, 4.0, 6.0, 8.0], [3.0, 3.0, 3.0, 3.0]])
HANDOUT_GAMMA = np.array([1.0, 2.0, 1.0, 0.5])
HANDOUT_BETA = np.array([0.0, 0.0, 1.0, -1.0])


def _unit(X):
    d = X.shape[1]
    return np.ones(d), np.zeros(d)


@check()
def test_handout_example(submission):
    """The handout's example: layer_norm(X, gamma, beta) to 4 decimals, the constant row giving beta."""
    got = expect.array(submission.layer_norm(HANDOUT_X, HANDOUT_GAMMA, HANDOUT_BETA), CALL)
    expected = reference_layer_norm(HANDOUT_X, HANDOUT_GAMMA, HANDOUT_BETA)
    expect.close(got, expected, f"{CALL} on the handout's example", rtol=0, atol=5e-5)


@check(inputs=strategies.layer_inputs())
def test_shape(submission, inputs):
    """layer_norm(X, gamma, beta) has the shape of X, (n, d)."""
    X = inputs[0]
    got = expect.array(submission.layer_norm(*inputs), CALL)
    expect.shape(got, X.shape, f"{CALL} for X of shape {X.shape}")


@check(X=strategies.matrices())
def test_rows_normalised(submission, X):
    """Each row of layer_norm(X, 1, 0) has mean 0 and variance var / (var + eps): about 1, and 0 for a constant row."""
    gamma, beta = _unit(X)
    got = expect.array(submission.layer_norm(X, gamma, beta), UNIT_CALL)
    n, d = X.shape
    expect.shape(got, (n, d), UNIT_CALL)
    expect.finite(got, UNIT_CALL)
    _, var = reference_row_stats(X)
    slack = x_hat_slack(X)
    for i in range(n):
        row = f"row {i} of {UNIT_CALL}"
        expect.close(np.asarray(got[i].mean()), np.asarray(0.0), f"the mean of {row}", atol=expect.ATOL + slack[i])
        expect.close(
            np.asarray(got[i].var()),
            np.asarray(var[i, 0] / (var[i, 0] + 1e-5)),
            f"the variance of {row} (var / (var + eps) of that row of X, about 1)",
            atol=expect.ATOL + 4 * np.sqrt(d) * slack[i],
        )


@check(inputs=strategies.layer_inputs())
def test_gamma_beta_per_column(submission, inputs):
    """Column j of layer_norm(X, gamma, beta) is gamma[j] * (column j of layer_norm(X, 1, 0)) + beta[j]."""
    X, gamma, beta = inputs
    got = expect.array(submission.layer_norm(X, gamma, beta), CALL)
    unit = expect.array(submission.layer_norm(X, *_unit(X)), UNIT_CALL)
    expect.shape(unit, X.shape, UNIT_CALL)
    expect.close(got, gamma * unit + beta, f"{CALL}, compared with gamma * {UNIT_CALL} + beta,")


@check(inputs=strategies.constant_row_inputs())
def test_constant_row(submission, inputs):
    """A row whose entries are all equal gives beta: eps inside the square root keeps 0 / sqrt(0 + eps) finite."""
    X, gamma, beta, rows = inputs
    got = expect.array(submission.layer_norm(X, gamma, beta), CALL)
    expect.shape(got, X.shape, CALL)
    # A head in float32 rounds the mean of a constant row, and sqrt(0 + eps) magnifies that (rounding.py).
    slack = x_hat_slack(X) * np.abs(gamma).max()
    for i in rows:
        what = f"row {i} of {CALL} (row {i} of X is constant, so it should be beta)"
        expect.finite(got[i], what)
        expect.close(got[i], beta, what, atol=expect.ATOL + slack[i])


@check(inputs=strategies.layer_inputs_with_eps())
def test_uses_eps(submission, inputs):
    """The eps passed is the one used, added to the variance inside the square root: (X - mean) / sqrt(var + eps)."""
    X, gamma, beta, eps = inputs
    call = f"layer_norm(X, gamma, beta, eps={eps})"
    got = expect.array(submission.layer_norm(X, gamma, beta, eps=eps), call)
    expect.close(got, reference_layer_norm(X, gamma, beta, eps), call)


@check(inputs=strategies.layer_inputs())
def test_matches_reference(submission, inputs):
    """layer_norm(X, gamma, beta) equals the reference on random inputs (default eps)."""
    X, gamma, beta = inputs
    got = expect.array(submission.layer_norm(X, gamma, beta), CALL)
    expected = reference_layer_norm(X, gamma, beta)
    expect.shape(got, expected.shape, CALL)
    slack = x_hat_slack(X) * np.abs(gamma).max()
    for i in range(X.shape[0]):
        expect.close(got[i], expected[i], f"row {i} of {CALL}", atol=expect.ATOL + slack[i])


@check(inputs=strategies.layer_inputs())
def test_inputs_unchanged(submission, inputs):
    """layer_norm leaves X, gamma and beta exactly as it received them."""
    reply = submission.call("layer_norm", list(inputs), return_args=True)
    for name, before, after in zip(("X", "gamma", "beta"), inputs, reply.args_after):
        expect.unchanged("layer_norm", name, before, after)
