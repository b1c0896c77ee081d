"""Checks of ``rms_norm(X, gamma, eps=1e-5)``: rows rescaled (not centred) to a root mean
square of about 1, then scaled by gamma."""

import numpy as np

from grader.authoring.checks import check, expect

from .. import strategies
from ..calls import rms_norm as reference_rms_norm

UNIT_CALL = "rms_norm(X, np.ones(d))"


@check(X=strategies.matrices())
def test_unit_rms(submission, X):
    """The mean square of each row of rms_norm(X, 1) is ms / (ms + eps), with ms that of X's row: about 1."""
    n, d = X.shape
    got = expect.array(submission.rms_norm(X, np.ones(d)), UNIT_CALL)
    expect.shape(got, (n, d), UNIT_CALL)
    expect.finite(got, UNIT_CALL)
    ms = np.mean(X**2, axis=1)
    expect.close(
        np.mean(got**2, axis=1),
        ms / (ms + 1e-5),
        f"the mean of the squares of each row of {UNIT_CALL} (one number per row: ms / (ms + eps) with ms that of "
        "the row of X, about 1)",
    )


@check(X=strategies.matrices())
def test_not_centred(submission, X):
    """Each row of rms_norm(X, 1) is a positive multiple of that row of X: RMSNorm rescales, it subtracts no mean."""
    n, d = X.shape
    got = expect.array(submission.rms_norm(X, np.ones(d)), UNIT_CALL)
    expect.shape(got, (n, d), UNIT_CALL)
    expect.finite(got, UNIT_CALL)
    for i in range(n):
        row, out = X[i], got[i]
        if not np.any(row):
            expect.close(out, np.zeros(d), f"row {i} of {UNIT_CALL} (row {i} of X is all zeros)")
            continue
        factor = float(out @ row) / float(row @ row)
        expect.close(out, factor * row, f"row {i} of {UNIT_CALL}, compared with the best multiple of row {i} of X,")
        expect.holds(
            factor > 0,
            f"row {i} of {UNIT_CALL} is X's row times {factor:.6g}: it should be a positive multiple of it",
            got=factor,
        )


@check(inputs=strategies.rms_inputs_any_eps())
def test_matches_reference(submission, inputs):
    """rms_norm(X, gamma, eps) equals the reference, X / sqrt(mean(X ** 2 over the row) + eps) * gamma."""
    X, gamma, eps = inputs
    call = "rms_norm(X, gamma)" if eps is None else f"rms_norm(X, gamma, eps={eps})"
    got = expect.array(submission.rms_norm(X, gamma, eps=eps), call)
    expected = reference_rms_norm(X, gamma) if eps is None else reference_rms_norm(X, gamma, eps)
    expect.close(got, expected, call)
