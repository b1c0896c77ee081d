"""Checks of ``split_heads(X, n_heads)`` and ``merge_heads(H)``: where each column goes."""

import numpy as np

from grader.authoring.checks import expect
from grader.assignments.multi_head import strategies
from grader.authoring.checks import check

# The handout's tiny example: 2 tokens, d_model 4, 2 heads of width 2.
HANDOUT_X = np.array([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
HANDOUT_HEADS = np.array([[[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [6.0, 7.0]]])


def _columns(h: int, d_head: int) -> str:
    return f"{h * d_head}:{(h + 1) * d_head}"


@check()
def test_handout_example(submission):
    """The handout's example: head 0 of a (2, 4) X holds columns 0:2 of both tokens, head 1 columns 2:4."""
    H = expect.array(submission.split_heads(HANDOUT_X, 2), "split_heads(X, 2)")
    expect.close(H, HANDOUT_HEADS, "split_heads(X, 2)", rtol=0, atol=0)


@check(xh=strategies.split_inputs())
def test_split_shape(submission, xh):
    """split_heads(X, n_heads) has shape (n_heads, n, d_head), with d_head = d_model // n_heads."""
    X, n_heads = xh
    H = expect.array(submission.split_heads(X, n_heads), "split_heads(X, n_heads)")
    n, d_model = X.shape
    expect.shape(H, (n_heads, n, d_model // n_heads), f"split_heads(X, {n_heads}) for X of shape {X.shape}")


@check(xh=strategies.split_inputs())
def test_split_returns_array(submission, xh):
    """split_heads returns one NumPy array, (n_heads, n, d_head), not a list or tuple of heads: H[h] and H.shape work on it."""
    X, n_heads = xh
    H = submission.split_heads(X, n_heads)
    expect.holds(
        isinstance(H, np.ndarray),
        f"split_heads(X, {n_heads}) should return one array of shape (n_heads, n, d_head); it returned "
        f"{expect.describe(H)} (np.stack(heads) makes one array of a list of heads)",
    )


@check(xh=strategies.split_inputs(min_heads=2))
def test_split_columns(submission, xh):
    """Head h of split_heads(X, n_heads) is X[:, h*d_head:(h+1)*d_head]: its own columns, one row per token."""
    X, n_heads = xh
    H = expect.array(submission.split_heads(X, n_heads), "split_heads(X, n_heads)")
    n, d_model = X.shape
    d_head = d_model // n_heads
    expect.shape(H, (n_heads, n, d_head), "split_heads(X, n_heads)")
    for h in range(n_heads):
        expect.close(H[h], X[:, h * d_head : (h + 1) * d_head], f"head {h} (should be X[:, {_columns(h, d_head)}])")


@check(xh=strategies.uneven_split_inputs())
def test_split_refuses_uneven_width(submission, xh):
    """Bonus: split_heads refuses an X whose width is no multiple of n_heads: it raises ValueError (an assert's AssertionError counts too), where slicing d_model // n_heads columns per head would silently drop the rest, and still splits those rows made n_heads times as wide."""
    X, n_heads = xh
    # A refusal counts where the width is the fault: the same X repeated n_heads times is split.
    widened = np.tile(X, (1, n_heads))
    expect.array(submission.split_heads(widened, n_heads), f"split_heads(X, {n_heads}) for X of shape {widened.shape}")
    expect.raises(
        (ValueError, AssertionError), f"split_heads(X, {n_heads}) for X of shape {X.shape}", submission.split_heads, X, n_heads
    )


@check(stack=strategies.head_stacks())
def test_merge_shape(submission, stack):
    """merge_heads(H) has shape (n, n_heads * d_head) for H of shape (n_heads, n, d_head)."""
    n_heads, n, d_head = stack.shape
    merged = expect.array(submission.merge_heads(stack), "merge_heads(H)")
    expect.shape(merged, (n, n_heads * d_head), f"merge_heads(H) for H of shape {stack.shape}")


@check(stack=strategies.head_stacks(min_heads=2))
def test_merge_columns(submission, stack):
    """merge_heads(H) puts head h back in columns h*d_head:(h+1)*d_head, token i in row i: it undoes split_heads."""
    n_heads, n, d_head = stack.shape
    merged = expect.array(submission.merge_heads(stack), "merge_heads(H)")
    expect.shape(merged, (n, n_heads * d_head), "merge_heads(H)")
    for h in range(n_heads):
        columns = _columns(h, d_head)
        got = merged[:, h * d_head : (h + 1) * d_head]
        expect.close(got, stack[h], f"merge_heads(H)[:, {columns}] (should be head H[{h}])")


@check(xh=strategies.split_inputs(min_heads=2))
def test_round_trip(submission, xh):
    """Splitting into heads and merging them back gives X again: merge_heads(split_heads(X, n_heads)) == X."""
    X, n_heads = xh
    H = expect.array(submission.split_heads(X, n_heads), "split_heads(X, n_heads)")
    merged = expect.array(submission.merge_heads(H), "merge_heads(split_heads(X, n_heads))")
    expect.close(merged, X, "merge_heads(split_heads(X, n_heads)), compared with X,")


@check(xh=strategies.split_inputs(min_heads=2))
def test_split_inputs_unchanged(submission, xh):
    """split_heads leaves the X it is given as it received it."""
    X, n_heads = xh
    split = submission.call("split_heads", [X, n_heads], return_args=True)
    expect.unchanged("split_heads", "X", X, split.args_after[0])


@check(stack=strategies.head_stacks(min_heads=2))
def test_merge_inputs_unchanged(submission, stack):
    """merge_heads leaves the H it is given as it received it (checked on its own, whatever split_heads does)."""
    merge = submission.call("merge_heads", [stack], return_args=True)
    expect.unchanged("merge_heads", "H", stack, merge.args_after[0])
