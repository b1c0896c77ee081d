"""Checks of ``self_attention(X, Wq, Wk, Wv, mask=None)``."""

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check
from grader.assignments.attention_head.checks.mask import nan_stays_in_its_row

CALL = "self_attention(X, Wq, Wk, Wv)"
MASKED_CALL = "self_attention(X, Wq, Wk, Wv, mask)"


@check(xw=strategies.self_attention_inputs())
def test_projections(submission, xw):
    """self_attention equals attention(X Wq, X Wk, X Wv)."""
    X, Wq, Wk, Wv = xw
    got = expect.pair(submission.self_attention(X, Wq, Wk, Wv), CALL)
    expect.same_attention(got, reference.attention(X @ Wq, X @ Wk, X @ Wv))


@check(xw=strategies.self_attention_inputs(min_n=2))
def test_mask_passed(submission, xw):
    """With a causal mask, self_attention gives the masked attention of X Wq, X Wk and X Wv."""
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


@check(xw=strategies.large_score_self_attention_inputs())
def test_large_logits(submission, xw):
    """self_attention stays finite and correct when the scores X Wq (X Wk)^T / sqrt(d_k) reach about ±1e3."""
    X, Wq, Wk, Wv = xw
    got = expect.pair(submission.self_attention(X, Wq, Wk, Wv), CALL)
    expect.finite(got[1], "A")
    expect.same_attention(got, reference.attention(X @ Wq, X @ Wk, X @ Wv), rtol=1e-3)


@check(xwm=strategies.self_attention_one_row_fully_masked())
def test_fully_masked_row_nan(submission, xwm):
    """A token whose every key is masked gets nan weights and a nan output (the lesson's signal of a
    broken mask), and only that token: every other row of A and of out is the reference's."""
    X, Wq, Wk, Wv, mask = xwm
    got = expect.pair(submission.self_attention(X, Wq, Wk, Wv, mask), MASKED_CALL)
    nan_stays_in_its_row(got, reference.attention(X @ Wq, X @ Wk, X @ Wv, mask), mask, X @ Wv, ("token", "token"))


@check(xwm=strategies.masked_self_attention_inputs())
def test_inputs_unchanged(submission, xwm):
    """self_attention leaves X, Wq, Wk, Wv and mask exactly as it received them."""
    called = submission.call("self_attention", list(xwm), return_args=True)
    for name, before, after in zip(("X", "Wq", "Wk", "Wv", "mask"), xwm, called.args_after):
        expect.unchanged("self_attention", name, before, after)
