"""Checks of ``self_attention(X, Wq, Wk, Wv, mask=None)``."""

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check


@check(xw=strategies.self_attention_inputs())
def test_projections(submission, xw):
    """self_attention equals attention(X Wq, X Wk, X Wv)."""
    X, Wq, Wk, Wv = xw
    got = expect.pair(submission.self_attention(X, Wq, Wk, Wv), "self_attention(X, Wq, Wk, Wv)")
    expect.same_attention(got, reference.attention(X @ Wq, X @ Wk, X @ Wv))


@check(xw=strategies.self_attention_inputs(min_n=2))
def test_mask_passed(submission, xw):
    """self_attention passes its mask on: with a causal mask it matches masked attention."""
    X, Wq, Wk, Wv = xw
    mask = reference.causal_mask(X.shape[0])
    got = expect.pair(submission.self_attention(X, Wq, Wk, Wv, mask), "self_attention(X, Wq, Wk, Wv, mask)")
    expect.same_attention(got, reference.attention(X @ Wq, X @ Wk, X @ Wv, mask))


@check(xw_order=strategies.self_attention_inputs(min_n=2).flatmap(strategies.with_permutation))
def test_permutation_equivariance(submission, xw_order):
    """Shuffling the tokens of X shuffles the outputs the same way (no mask)."""
    (X, Wq, Wk, Wv), order = xw_order
    out, A = expect.pair(submission.self_attention(X, Wq, Wk, Wv), "self_attention(X, Wq, Wk, Wv)")
    out_p, A_p = expect.pair(submission.self_attention(X[order], Wq, Wk, Wv), "self_attention(X[order], Wq, Wk, Wv)")
    expect.shape(out, (X.shape[0], Wv.shape[1]), "out")
    # Both sides are the student's: nan would equal nan, so neither may hold any.
    expect.finite(out, "out")
    expect.close(out_p, out[order], "self_attention(X[order], ...) out, compared with out[order],")
    expect.shape(A, (X.shape[0], X.shape[0]), "A")
    expect.finite(A, "A")
    expect.close(A_p, A[order][:, order], "self_attention(X[order], ...) A, compared with A[order][:, order],")
