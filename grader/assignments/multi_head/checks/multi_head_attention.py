"""Checks of ``multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None) -> (out, A)``."""

import numpy as np

from grader.authoring.checks import expect
from grader.assignments.multi_head import reference, strategies
from grader.authoring.checks import check

CALL = "multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads)"
MASKED_CALL = "multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask)"

# The handout's worked example: 3 tokens, 2 heads of width 2, Wq = Wk = Wv = I, and a Wo
# that swaps the two heads' halves. Head 0 sees the lesson's worked example.
WORKED_X = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0], [1.0, 1.0, 0.0, 0.0]])
IDENTITY_4 = np.eye(4)
SWAP_HALVES = np.block([[np.zeros((2, 2)), np.eye(2)], [np.eye(2), np.zeros((2, 2))]])


def _call(mask):
    return CALL if mask is None else MASKED_CALL


def _head_columns(X, W, h, d_head):
    return (X @ W)[:, h * d_head : (h + 1) * d_head]


@check()
def test_worked_example(submission):
    """The handout's worked example: A to 4 decimals, out to 4 decimals."""
    args = (WORKED_X, IDENTITY_4, IDENTITY_4, IDENTITY_4, SWAP_HALVES, 2)
    out, A = expect.pair(submission.multi_head_attention(*args), CALL)
    expected_out, expected_A = reference.multi_head_attention(*args)
    expect.close(A, expected_A, "A", rtol=0, atol=5e-5)
    expect.close(out, expected_out, "out", rtol=0, atol=5e-5)


@check(inputs=strategies.multi_head_inputs())
def test_shapes(submission, inputs):
    """out has shape (n, d_model) and A has shape (n_heads, n, n): one weight matrix per head."""
    X, *_, n_heads = inputs
    out, A = expect.pair(submission.multi_head_attention(*inputs), CALL)
    n, d_model = X.shape
    expect.shape(out, (n, d_model), f"out (n = {n}, d_model = {d_model})")
    expect.shape(A, (n_heads, n, n), f"A (n_heads = {n_heads}, n = {n})")


@check(inputs=strategies.any_multi_head_inputs())
def test_rows_sum_to_one(submission, inputs):
    """In every head, each row of A is a probability distribution over the tokens: it sums to 1, with a mask too."""
    X, *_, n_heads, mask = inputs
    _, A = expect.pair(submission.multi_head_attention(*inputs), _call(mask))
    n = X.shape[0]
    expect.shape(A, (n_heads, n, n), "A")
    expect.sums_to_one(A.sum(axis=-1), "A.sum(axis=-1), one row sum per head and token,")


@check(inputs=strategies.one_head_inputs())
def test_one_head(submission, inputs):
    """With one head, multi-head attention is the lesson's head followed by Wo.

    A[0] = softmax(Q K^T / sqrt(d_model)) and out = A[0] V Wo, with Q = X Wq, K = X Wk, V = X Wv.
    """
    X, Wq, Wk, Wv, Wo, n_heads = inputs
    out, A = expect.pair(submission.multi_head_attention(*inputs), CALL)
    head, expected_A = reference.attention(X @ Wq, X @ Wk, X @ Wv)
    n = X.shape[0]
    expect.shape(A, (1, n, n), "A (one head)")
    expect.close(A[0], expected_A, "A[0], the lesson's softmax(Q K^T / sqrt(d_model)),")
    expect.close(out, head @ Wo, "out, the lesson's head output times Wo,")


@check(inputs=strategies.multi_head_inputs(min_heads=2))
def test_per_head(submission, inputs):
    """Head h weighs the tokens as the lesson's head does on its own columns h*d_head:(h+1)*d_head of X Wq and X Wk."""
    X, Wq, Wk, Wv, Wo, n_heads = inputs
    _, A = expect.pair(submission.multi_head_attention(*inputs), CALL)
    n, d_model = X.shape
    d_head = d_model // n_heads
    expect.shape(A, (n_heads, n, n), "A")
    for h in range(n_heads):
        Q, K, V = (_head_columns(X, W, h, d_head) for W in (Wq, Wk, Wv))
        _, expected = reference.attention(Q, K, V)
        columns = f"{h * d_head}:{(h + 1) * d_head}"
        expect.close(A[h], expected, f"A[{h}], the lesson's head on columns {columns} of X Wq and X Wk,")


@check(inputs=strategies.scale_inputs())
def test_scale(submission, inputs):
    """Each head divides its scores by sqrt(d_head), the width of its own queries."""
    X, *_, n_heads = inputs
    _, A = expect.pair(submission.multi_head_attention(*inputs), CALL)
    _, expected_A = reference.multi_head_attention(*inputs)
    d_model = X.shape[1]
    d_head = d_model // n_heads
    expect.close(A, expected_A, f"A, whose scores the handout divides by sqrt(d_head) = sqrt({d_head}) = {np.sqrt(d_head):.4g},")


@check(inputs=strategies.multi_head_inputs())
def test_output_projection(submission, inputs):
    """The merged heads are multiplied by Wo: out equals (the out given for Wo = I) @ Wo."""
    X, Wq, Wk, Wv, Wo, n_heads = inputs
    out, _ = expect.pair(submission.multi_head_attention(*inputs), CALL)
    identity = np.eye(X.shape[1])
    merged, _ = expect.pair(
        submission.multi_head_attention(X, Wq, Wk, Wv, identity, n_heads),
        "multi_head_attention(X, Wq, Wk, Wv, I, n_heads)",
    )
    expect.shape(merged, X.shape, "out for Wo = I")
    # Both sides are the student's: nan would equal nan, so neither may hold any.
    expect.finite(merged, "out for Wo = I")
    expect.shape(out, X.shape, "out")
    expect.finite(out, "out")
    expect.close(out, merged @ Wo, "out, compared with (the out for Wo = I) @ Wo,")


@check(inputs=strategies.causal_inputs())
def test_no_future_leakage(submission, inputs):
    """Under a causal mask no head gives weight to a future token, and no output row depends on one: the one mask applies to every head."""
    X, Wq, Wk, Wv, Wo, n_heads, mask = inputs
    out, A = expect.pair(submission.multi_head_attention(*inputs), MASKED_CALL)
    n = mask.shape[0]
    expect.shape(A, (n_heads, n, n), "A")
    expect.finite(A, "A")  # every row keeps a key: nan anywhere is no distribution
    leaks = np.argwhere(~mask[np.newaxis] & (A != 0))
    if leaks.size:
        h, i, j = (int(v) for v in leaks[0])
        expect.holds(
            False,
            f"A[{h}, {i}, {j}] = {A[h, i, j]:.6g}, but in head {h} token {i} may not attend to future token {j}",
            got=A,
        )
    # What the earlier tokens get must not depend on the last one, whatever A says.
    changed = X.copy()
    changed[-1] += 1.0
    out_changed, _ = expect.pair(
        submission.multi_head_attention(changed, Wq, Wk, Wv, Wo, n_heads, mask),
        "multi_head_attention(X with its last token changed, Wq, Wk, Wv, Wo, n_heads, mask)",
    )
    expect.shape(out, X.shape, "out")
    expect.finite(out, "out")
    expect.shape(out_changed, X.shape, "out for X with its last token changed")
    expect.close(
        out_changed[:-1], out[:-1],
        "out for every token but the last, once the last token of X is changed (a future token leaked into it),",
    )


@check(inputs=strategies.masked_inputs())
def test_arbitrary_mask(submission, inputs):
    """Any (n, n) mask keeping a key per query is applied to the scores of every head, before softmax."""
    got = expect.pair(submission.multi_head_attention(*inputs), MASKED_CALL)
    expect.same_attention(got, reference.multi_head_attention(*inputs))


@check(inputs=strategies.rows_fully_masked())
def test_fully_masked_row_nan(submission, inputs):
    """A query whose every key is masked has nan weights in every head (the lesson's -inf gives 0/0) and a nan
    output row, and only there: the other rows of A, and of out, stay the reference's."""
    X, Wq, Wk, Wv, Wo, n_heads, mask = inputs
    out, A = expect.pair(submission.multi_head_attention(*inputs), MASKED_CALL)
    n = mask.shape[0]
    expect.shape(A, (n_heads, n, n), "A")
    dead = ~mask.any(axis=1)
    for row in np.flatnonzero(dead):
        expect.holds(
            bool(np.isnan(A[:, row]).all()),
            f"row {row} of the mask is all False, so A[:, {row}] (that row in every head) should be all nan",
            got=A,
        )
    expected_out, expected_A = reference.multi_head_attention(*inputs)
    expect.close(A, expected_A, "A")
    expect.shape(out, expected_out.shape, "out")
    # Held to nan only where no zero could hide it: np.dot's BLAS skips zero factors.
    if not ((X @ Wv) == 0).any():
        for row in np.flatnonzero(dead):
            held = ~(Wo == 0).any(axis=0)
            expect.holds(
                bool(np.isnan(out[row, held]).all()),
                f"A[:, {row}] is nan in every head, so out[{row}] (those heads' outputs, merged, times Wo) "
                "should be all nan too",
                got=out,
            )
    expected_out = expected_out.copy()
    expected_out[dead] = out[dead]  # judged above
    expect.close(out, expected_out, "out")


@check(inputs=strategies.large_score_inputs())
def test_large_logits(submission, inputs):
    """Every head stays finite and correct when its scores reach about ±1e3, with or without a mask: the softmax
    subtracts each row's max, and a masked key that holds its row's largest score is hidden exactly."""
    got = expect.pair(submission.multi_head_attention(*inputs), _call(inputs[-1]))
    expect.finite(got[1], "A")
    expect.same_attention(got, reference.multi_head_attention(*inputs), rtol=1e-3)


@check(inputs_order=strategies.permuted_inputs())
def test_permutation_equivariance(submission, inputs_order):
    """Shuffling the tokens of X shuffles out's rows, and every head's rows and columns of A, the same way (no mask)."""
    (X, Wq, Wk, Wv, Wo, n_heads), order = inputs_order
    out, A = expect.pair(submission.multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads), CALL)
    out_p, A_p = expect.pair(
        submission.multi_head_attention(X[order], Wq, Wk, Wv, Wo, n_heads),
        "multi_head_attention(X[order], Wq, Wk, Wv, Wo, n_heads)",
    )
    n = X.shape[0]
    expect.shape(out, X.shape, "out")
    # Both sides are the student's: nan would equal nan, so neither may hold any.
    expect.finite(out, "out")
    expect.close(out_p, out[order], "multi_head_attention(X[order], ...) out, compared with out[order],")
    expect.shape(A, (n_heads, n, n), "A")
    expect.finite(A, "A")
    expect.close(
        A_p, A[:, order][:, :, order], "multi_head_attention(X[order], ...) A, compared with A[:, order][:, :, order],"
    )


@check(inputs=strategies.masked_inputs())
def test_inputs_unchanged(submission, inputs):
    """multi_head_attention leaves X, Wq, Wk, Wv, Wo and mask exactly as it received them."""
    reply = submission.call("multi_head_attention", list(inputs), return_args=True)
    names = ("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "mask")
    for name, before, after in zip(names, inputs, reply.args_after):
        if isinstance(before, np.ndarray):
            expect.unchanged("multi_head_attention", name, before, after)


@check(inputs=strategies.any_multi_head_inputs())
def test_matches_reference(submission, inputs):
    """out and A equal the reference's, with no mask, a causal mask or any other mask."""
    *args, mask = inputs
    got = expect.pair(submission.multi_head_attention(*args, mask), _call(mask))
    expect.same_attention(got, reference.multi_head_attention(*args, mask))
